// Taking a seat in the room on this page: `POST /api/rooms/{code}/join` with the name
// typed (remembered for next time), then the new token kept and said hello with
// (state.js `sitDown`); a refusal is said under the name field (`joinFailed`), in the
// words of the catalogue (net.js `joinError`: a name in use, a seat just taken, …).

import { t } from "./i18n.js";
import { api, joinError, saveName } from "./net.js";
import { joinFailed, room, sitDown } from "./state.js";
import { memberKeyForRoom } from "./clubkeys.js";

/** Take seat `seat` under `name`, then say hello with the new token. */
export async function joinSeat(name, seat) {
  if (!name) {
    joinFailed(t("err.name"));
    return;
  }
  saveName(name);
  let res;
  try {
    // A member of the room's club sits down as that member (clubkeys.js).
    const path = `/api/rooms/${encodeURIComponent(room.code)}/join`;
    const key = memberKeyForRoom(room.code);
    res = await api("POST", path, key ? { name, seat, member_key: key } : { name, seat });
    if (key && (res.status === 403 || res.status === 422)) {
      // No longer a member (or no club's room after all): sit down as anyone would.
      res = await api("POST", path, { name, seat });
    }
  } catch {
    joinFailed(t("err.network"));
    return;
  }
  if (res.status === 200 && res.data && res.data.token) sitDown(res.data.token);
  else joinFailed(t(joinError(res)));
}
