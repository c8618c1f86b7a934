// A club's page, /c/{code}: joining it (the code is the invite), its members, its rooms,
// its standings (clubstats.js) and its archive of finished games (clubgames.js); the
// member's own name and leaving; the admin's renames and removals.
//
// What a key is comes from the server (`you` of GET /api/clubs/{code}); this browser
// keeps the keys (clubkeys.js) and sends them only in the Authorization header.

import { t } from "./i18n.js";
import { $, fill, h } from "./dom.js";
import { copyLink, messagePage, shell, showToast } from "./page.js";
import { gameLabel, games } from "./games.js";
import { clubApi, clubEntry, forgetClub, noteClubRoom, readKey, saveClub, takeKeyFromFragment } from "./clubkeys.js";
import { standingsPanel } from "./clubstats.js";
import { confirmButton } from "./clubwords.js";
import { archivePanel } from "./clubgames.js";

const REASONS = { 409: "club.err.name_taken", 422: "club.err.name", 429: "err.too_many_attempts", 503: "club.err.unavailable" };

function reason(status) {
  return t(REASONS[status] || "err.network");
}

/** Show club `code`'s page (or the way to join it). */
export async function showClub(code) {
  takeKeyFromFragment(code);
  document.title = t("club.page_title");
  shell(h("main", { class: "club", id: "club" }, h("p", { class: "muted" }, t("club.loading"))));
  const key = readKey(code);
  if (!key) {
    joinView(code, "");
    return;
  }
  let res;
  try {
    res = await clubApi("GET", `/api/clubs/${encodeURIComponent(code)}`, key);
  } catch {
    messagePage(t("err.network"));
    return;
  }
  if (res.status === 404) {
    forgetClub(code);
    messagePage(t("club.err.unknown"));
    return;
  }
  if (res.status === 401) {
    // The key no longer works (its member left, or was removed): join again.
    forgetClub(code);
    joinView(code, t("club.err.key_gone"));
    return;
  }
  if (res.status !== 200) {
    messagePage(reason(res.status));
    return;
  }
  const club = res.data;
  saveClub(code, { name: club.name, member: club.you.member });
  for (const r of club.rooms) noteClubRoom(r.code, code);
  document.title = `${club.name} · Schmier`;
  render(code, club);
}

function joinView(code, notice) {
  const name = h("input", { id: "club-join-name", maxlength: "24", autocomplete: "nickname", required: true });
  const status = h("p", { class: "form-status", role: "status" }, notice);
  const form = h(
    "form",
    {
      class: "card-panel club-join",
      onsubmit: async (ev) => {
        ev.preventDefault();
        status.textContent = "";
        let res;
        try {
          res = await clubApi("POST", `/api/clubs/${encodeURIComponent(code)}/members`, null, { name: name.value });
        } catch {
          status.textContent = t("err.network");
          return;
        }
        if (res.status === 201) {
          saveClub(code, { key: res.data.key, member: res.data.member });
          showClub(code);
          return;
        }
        status.textContent = res.status === 404 ? t("club.err.unknown") : reason(res.status);
      },
    },
    h("h1", {}, t("club.join_title")),
    h("p", { class: "muted" }, t("club.join_help")),
    h("label", { class: "field", for: "club-join-name" }, h("span", {}, t("join.name")), name),
    h("button", { type: "submit", class: "primary", dataset: { action: "join-club" } }, t("club.join")),
    status,
  );
  fill($("club"), form);
  name.focus();
}

function render(code, club) {
  const you = club.you;
  const sections = [
    header(code, club),
    membersPanel(code, club),
    roomsPanel(code, club),
    standingsPanel(code),
    archivePanel(code, club),
  ];
  if (you.admin) sections.splice(1, 0, adminPanel(code, club));
  fill($("club"), sections);
}

function copyRow(id, label, value) {
  const input = h("input", { id, readonly: true, value, class: "club-link" });
  const done = h("span", { class: "muted small", role: "status" });
  const copy = () => copyLink(input, done, value);
  return h(
    "div",
    { class: "club-copy" },
    h("label", { for: id }, label),
    h("div", { class: "row" }, input, h("button", { type: "button", onclick: copy }, t("invite.copy"))),
    done,
  );
}

function header(code, club) {
  const base = `${location.origin}/c/${encodeURIComponent(code)}`;
  const entry = clubEntry(code);
  const who = club.you.admin ? t("club.you_admin") : t("club.you_member", { name: club.you.name });
  return h(
    "section",
    { class: "card-panel club-head", "aria-labelledby": "club-name" },
    h("h1", { id: "club-name" }, club.name),
    h("p", { class: "muted" }, who),
    copyRow("club-invite", t("club.invite"), base),
    entry.key ? copyRow("club-own-link", t("club.own_link"), `${base}#key=${entry.key}`) : null,
    entry.admin ? copyRow("club-admin-link", t("club.admin_link"), `${base}#admin=${entry.admin}`) : null,
    h("p", { class: "muted small" }, t("club.links_help")),
  );
}

function nameForm(id, label, value, submit, action) {
  const input = h("input", { id, value, maxlength: String(action === "rename-club" ? 40 : 24), required: true });
  const status = h("p", { class: "form-status", role: "status" });
  return h(
    "form",
    {
      class: "club-name-form",
      onsubmit: async (ev) => {
        ev.preventDefault();
        status.textContent = (await submit(input.value)) || "";
      },
    },
    h("label", { class: "field", for: id }, h("span", {}, label), h("div", { class: "row" }, input, h("button", { type: "submit", dataset: { action } }, t("club.save")))),
    status,
  );
}

function adminPanel(code, club) {
  const admin = clubEntry(code).admin;
  return h(
    "section",
    { class: "card-panel club-admin", "aria-labelledby": "club-admin-title" },
    h("h2", { id: "club-admin-title" }, t("club.admin")),
    nameForm("club-rename", t("club.rename"), club.name, async (name) => {
      const res = await clubApi("PATCH", `/api/clubs/${encodeURIComponent(code)}`, admin, { name });
      if (res.status === 200) {
        showClub(code);
        return "";
      }
      return res.status === 422 ? t("club.err.club_name") : reason(res.status);
    }, "rename-club"),
  );
}

function membersPanel(code, club) {
  const you = club.you;
  const entry = clubEntry(code);
  const remove = async (member, own) => {
    const key = own ? entry.key : entry.admin;
    const res = await clubApi("DELETE", `/api/clubs/${encodeURIComponent(code)}/members/${member}`, key);
    if (res.status !== 204) {
      showToast(reason(res.status));
      return;
    }
    if (own) {
      saveClub(code, { key: null, member: null });
      if (!entry.admin) forgetClub(code);
    }
    showClub(code);
  };
  const items = club.members.map((m) =>
    h(
      "li",
      { dataset: { member: m.member } },
      h("span", { class: "member-name" }, m.name),
      m.member === you.member ? h("span", { class: "muted small" }, ` (${t("club.you")})`) : null,
      you.admin && m.member !== you.member
        ? confirmButton(t("club.remove_named", { name: m.name }), t("club.remove_confirm"), () => remove(m.member, false), { class: "quiet small", dataset: { action: "remove-member" } })
        : null,
    ),
  );
  const own = you.member
    ? [
        nameForm("club-my-name", t("club.my_name"), you.name, async (name) => {
          const res = await clubApi("PATCH", `/api/clubs/${encodeURIComponent(code)}/members/${you.member}`, entry.key, { name });
          if (res.status === 200) {
            showClub(code);
            return "";
          }
          return reason(res.status);
        }, "rename-me"),
        confirmButton(t("club.leave"), t("club.leave_confirm"), () => remove(you.member, true), { class: "secondary", dataset: { action: "leave-club" } }),
        h("p", { class: "muted small" }, t("club.leave_help")),
      ]
    : [];
  return h(
    "section",
    { class: "card-panel club-members", "aria-labelledby": "club-members-title" },
    h("h2", { id: "club-members-title" }, t("club.members", { count: club.members.length })),
    h("ul", { class: "member-list" }, items),
    own,
  );
}

function phaseWord(phase) {
  if (phase === "lobby") return t("club.phase.lobby");
  return t(phase === "game_over" ? "club.phase.over" : "club.phase.playing");
}

function roomsPanel(code, club) {
  const books = games();
  const variant = h(
    "select",
    { id: "club-room-variant" },
    books.map((b) => h("option", { value: b.name }, gameLabel(b.name))),
  );
  const target = h("input", { id: "club-room-target", type: "number", min: "5", max: "99", value: "21", inputmode: "numeric" });
  const status = h("p", { class: "form-status", role: "status" });
  const form = h(
    "form",
    {
      class: "club-room-form",
      onsubmit: async (ev) => {
        ev.preventDefault();
        const body = { variant: variant.value, rules: { target: Number(target.value) } };
        const res = await clubApi("POST", `/api/clubs/${encodeURIComponent(code)}/rooms`, readKey(code), body);
        if (res.status === 201) {
          noteClubRoom(res.data.code, code);
          location.assign(`/r/${encodeURIComponent(res.data.code)}`);
          return;
        }
        status.textContent = res.status === 422 ? t("err.bad_rules") : reason(res.status);
      },
    },
    h("div", { class: "club-room-fields" },
      h("label", { class: "field", for: "club-room-variant" }, h("span", {}, t("home.game")), variant),
      h("label", { class: "field", for: "club-room-target" }, h("span", {}, t("rule.target")), target)),
    h("button", { type: "submit", class: "primary", dataset: { action: "club-room" } }, t("club.new_room")),
    status,
  );
  const rooms = club.rooms.length
    ? h(
        "ul",
        { class: "club-rooms" },
        club.rooms.map((r) =>
          h("li", {}, h("a", { href: `/r/${encodeURIComponent(r.code)}`, dataset: { room: r.code } }, `${gameLabel(r.variant)} · ${phaseWord(r.phase)}`)),
        ),
      )
    : h("p", { class: "muted" }, t("club.no_rooms"));
  return h(
    "section",
    { class: "card-panel club-rooms-panel", "aria-labelledby": "club-rooms-title" },
    h("h2", { id: "club-rooms-title" }, t("club.rooms")),
    rooms,
    form,
  );
}
