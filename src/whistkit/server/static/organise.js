// The organiser's dialog for an online evening (#34): title, hands, time per hand, groups,
// duplicate, the bots' level and the players (pasted, one a line: "Anna" or "Anna, A").
// Creating it opens the host's room, which lists every player's own link.

import { has, t } from "./i18n.js";
import { loadMeta } from "./newgame.js";
import { openDialog } from "./sheet.js";
import { $ } from "./state.js";

const HANDS = [12, 18, 24];
const MINUTES = [5, 10, 15, 20, 30];

export async function openOrganise() {
  const meta = await loadMeta();
  const hands = $("#ev-hands");
  if (!hands.options.length) {
    for (const n of HANDS) hands.append(new Option(String(n), String(n)));
    hands.value = "12";
    for (const m of MINUTES) $("#ev-minutes").append(new Option(t("time_minutes", { n: m }), String(m * 60)));
    $("#ev-minutes").value = "600";
  } else {
    for (const o of $("#ev-minutes").options) o.textContent = t("time_minutes", { n: Number(o.value) / 60 });
  }
  const level = $("#ev-level");
  const keep = level.value || meta.default_level;
  level.replaceChildren();
  for (const l of meta.levels) level.append(new Option(has(`level_${l}`) ? t(`level_${l}`) : l, l));
  level.value = keep;
  $("#ev-error").textContent = "";
  openDialog("#dlg-evening");
}

// one player a line; with groups the line ends in its group: "Anna, A", "Anna;B", "Anna<TAB>A"
export function readPlayers(text, grouped) {
  const players = [];
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  for (const [i, line] of lines.entries()) {
    const m = line.match(/^(.*?)[\s,;]+([ABab])$/);
    if (grouped) {
      if (!m) throw new Error(t("ev_line_group", { n: i + 1, line }));
      players.push({ name: m[1].trim(), group: m[2].toUpperCase() });
    } else {
      players.push({ name: line, group: null });
    }
  }
  return players;
}

export async function createEvening() {
  const error = $("#ev-error");
  error.textContent = "";
  let players;
  try {
    players = readPlayers($("#ev-players").value, $("#ev-groups").checked);
  } catch (err) {
    error.textContent = err.message;
    return;
  }
  const body = {
    title: $("#ev-title").value.trim() || t("ev_default_title"),
    hands: Number($("#ev-hands").value),
    players,
    seconds_per_hand: Number($("#ev-minutes").value),
    duplicate: $("#ev-duplicate").checked,
    level: $("#ev-level").value,
  };
  let r;
  let data;
  try {
    r = await fetch("/api/online-evenings", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    data = await r.json();
  } catch (err) {
    error.textContent = t("error", { message: err.message });
    return;
  }
  if (!r.ok) {
    error.textContent = t("error", { message: data.error });
    return;
  }
  location.assign(data.host_url); // the host's room, with the players' links
}
