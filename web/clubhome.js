// The home page's clubs: "your clubs", from the keys this browser holds (each club's
// name asked of the server again, so a renamed club shows its new name and a club the
// key no longer opens drops out), and the form that starts a club.

import { t } from "./i18n.js";
import { fill, h } from "./dom.js";
import { clubApi, forgetClub, heldClubs, readKey, saveClub } from "./clubkeys.js";

/** "Your clubs" (nothing when this browser holds no club's key). */
export function yourClubs() {
  const held = heldClubs();
  const list = h("ul", { class: "your-clubs" });
  const panel = h(
    "section",
    { class: "card-panel clubs-home", hidden: !held.length, "aria-labelledby": "your-clubs-title" },
    h("h2", { id: "your-clubs-title" }, t("club.yours")),
    list,
  );
  fill(list, held.map(([code, entry]) => h("li", {}, h("a", { href: `/c/${code}`, dataset: { club: code } }, entry.name || code))));
  for (const [code] of held) refresh(code, list, panel);
  return panel;
}

async function refresh(code, list, panel) {
  let res;
  try {
    res = await clubApi("GET", `/api/clubs/${encodeURIComponent(code)}`, readKey(code));
  } catch {
    return;
  }
  const link = list.querySelector(`a[data-club="${code}"]`);
  if (res.status === 200) {
    saveClub(code, { name: res.data.name });
    if (link) link.textContent = res.data.name;
  } else if (res.status === 401 || res.status === 404) {
    forgetClub(code);
    link?.closest("li")?.remove();
    panel.hidden = !list.children.length;
  }
}

/** The form that starts a club: its name and the creator's, who becomes its admin and
 * its first member. */
export function newClubForm() {
  const club = h("input", { id: "new-club-name", maxlength: "40", required: true });
  const name = h("input", { id: "new-club-me", maxlength: "24", autocomplete: "nickname", required: true, value: localStorage.getItem("schmier.name") || "" });
  const status = h("p", { class: "form-status", role: "status" });
  const submit = h("button", { type: "submit", class: "secondary", dataset: { action: "create-club" } }, t("club.create"));
  return h(
    "form",
    {
      class: "card-panel new-club",
      onsubmit: async (ev) => {
        ev.preventDefault();
        status.textContent = "";
        submit.disabled = true;
        try {
          const made = await clubApi("POST", "/api/clubs", null, { name: club.value });
          if (made.status !== 201) {
            status.textContent = t(made.status === 429 ? "err.too_many_attempts" : made.status === 503 ? "club.err.unavailable" : "club.err.club_name");
            return;
          }
          const code = made.data.code;
          saveClub(code, { name: made.data.name, admin: made.data.admin_key });
          const joined = await clubApi("POST", `/api/clubs/${code}/members`, null, { name: name.value });
          if (joined.status === 201) saveClub(code, { key: joined.data.key, member: joined.data.member });
          location.assign(`/c/${code}`);
        } catch {
          status.textContent = t("err.network");
        } finally {
          submit.disabled = false;
        }
      },
    },
    h("h2", {}, t("club.start_title")),
    h("p", { class: "muted" }, t("club.start_help")),
    h("label", { class: "field", for: "new-club-name" }, h("span", {}, t("club.name")), club),
    h("label", { class: "field", for: "new-club-me" }, h("span", {}, t("join.name")), name),
    submit,
    status,
  );
}
