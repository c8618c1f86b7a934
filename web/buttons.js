// A button that sends one protocol frame (an entry of `view.legal`, or a host's frame),
// its fields mirrored in data-* attributes so that keepFocus (dom.js), the keyboard
// (keys.js) and the tests find it again after a redraw. Shared by the action panel, the
// seats, the host's tools and the side panels.

import { h } from "./dom.js";
import { send } from "./state.js";
import { isHinted } from "./bots.js";

/** A button that sends `action`, its fields mirrored in data-*. */
export function actionButton(action, label, props = {}) {
  const dataset = { action: action.type };
  if (action.amount !== undefined) dataset.amount = String(action.amount);
  if (action.suit !== undefined) dataset.suit = action.suit;
  if (action.seat !== undefined) dataset.seat = String(action.seat);
  if (action.card) dataset.card = action.card;
  if (isHinted(action)) props = { ...props, class: `${props.class || ""} hinted`.trim() };
  return h("button", { type: "button", dataset, onclick: () => send(action), ...props }, label);
}
