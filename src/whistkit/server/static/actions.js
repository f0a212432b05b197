// Decisions as buttons: the engine's special actions and, in laws mode, the irregular ones.

import { cardLabel, has, t } from "./i18n.js";
import { send } from "./connection.js";
import { optionLabel } from "./newgame.js";
import { $, app } from "./state.js";
import { render } from "./table.js";

// a button's label for an action: action_<Kind>, or action_<Kind>_<choice>
export function actionLabel(action) {
  const kind = action.kind;
  for (const field of ["remedy", "choice"]) {
    if (typeof action[field] === "string" && has(`action_${kind}_${action[field]}`)) return t(`action_${kind}_${action[field]}`);
  }
  if (kind === "ChooseMethod") return t("action_ChooseMethod", { method: optionLabel("revoke_method", action.method) });
  if (kind === "NameSuit") return action.suit >= 0 ? t("action_NameSuit", { suit: t(`suit_${"SHDC"[action.suit]}`) }) : t("action_NameSuit_none");
  if (typeof action.card === "string") return t(`action_${kind}`, { card: cardLabel(action.card) });
  return has(`action_${kind}`) ? t(`action_${kind}`) : t("action_other", { kind });
}

export function actionButton(label, kind, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.action = kind;
  b.textContent = label;
  b.addEventListener("click", onClick);
  return b;
}

// decisions the engine asks for (buttons), and in laws mode the irregular actions:
// a correction or a replacement picks its card from the hand; a call is the exposed card
export function renderActions(v) {
  const box = $("#actions");
  box.replaceChildren();
  for (const a of v.legal) {
    if (a.type !== "action" || typeof a.action.card === "string") continue;
    box.append(actionButton(actionLabel(a.action), a.action.kind, () => send({ type: "action", action: a.action })));
  }
  const picks = new Set();
  for (const a of v.irregular || []) {
    if (a.type !== "action") continue;
    const kind = a.action.kind;
    if (typeof a.action.card === "string" && v.hand.includes(a.action.card)) {
      if (picks.has(kind)) continue;
      picks.add(kind);
      const picking = app.picking === kind;
      const b = actionButton(t(picking ? "pick_cancel" : `pick_${kind}`), kind, () => {
        app.picking = picking ? null : kind;
        render();
      });
      b.dataset.pick = kind;
      box.append(b);
    } else if (kind !== "Call") {
      box.append(actionButton(actionLabel(a.action), kind, () => send({ type: "action", action: a.action })));
    }
  }
}
