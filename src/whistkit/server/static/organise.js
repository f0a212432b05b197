// The organiser's dialog for an online evening (#34): title, hands, time per hand, groups,
// duplicate, the open join link, the prizes (the hall organiser's choices), the bots'
// level and the players (pasted, one a line: "Anna" or "Anna, A"). Creating it opens the
// host's room, which lists every player's own link (and the join link when open).

import { has, t } from "./i18n.js";
import { loadMeta } from "./newgame.js";
import { openDialog } from "./sheet.js";
import { $ } from "./state.js";

const HANDS = [12, 18, 24];
const MINUTES = [5, 10, 15, 20, 30];
const TIES = ["share", "countback", "lots"];
let wired = false;

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
  const ties = $("#ev-ties");
  const tie = ties.value || "share";
  ties.replaceChildren(...TIES.map((k) => new Option(t(`ev_ties_${k}`), k)));
  ties.value = tie;
  if (!wired) {
    wired = true;
    $("#ev-groups").addEventListener("change", showGroupPrizes);
    $("#ev-open-join").addEventListener("change", showJoinNotes);
    $("#ev-gather").addEventListener("change", showJoinNotes);
  }
  showGroupPrizes();
  showJoinNotes();
  $("#ev-error").textContent = "";
  openDialog("#dlg-evening");
}

// gathering through the join link needs it open; the players' names are then optional
function showJoinNotes() {
  const gather = $("#ev-gather").checked;
  const open = $("#ev-open-join");
  if (gather && !open.disabled) {
    open.dataset.before = String(open.checked); // the host's own choice, back on unticking
    open.checked = true;
  } else if (!gather && open.disabled) {
    open.checked = open.dataset.before === "true";
  }
  open.disabled = gather;
  $("#ev-players-join").hidden = !open.checked || gather;
  $("#ev-players-gather").hidden = !gather;
}

// the group prizes only with groups; without them the room's top three by default
function showGroupPrizes() {
  const grouped = $("#ev-groups").checked;
  $("#ev-top-group-line").hidden = !grouped;
  $("#ev-lowest-group-line").hidden = !grouped;
  const top = $("#ev-top");
  if (!grouped && Number(top.value) === 0) top.value = $("#ev-top-group").value;
}

function readPrizes() {
  const grouped = $("#ev-groups").checked;
  const whole = (id) => {
    const v = Number($(id).value);
    return Number.isInteger(v) ? v : -1; // refused by the server, which names it
  };
  return {
    top: whole("#ev-top"),
    top_per_group: grouped ? whole("#ev-top-group") : 0,
    lowest: $("#ev-lowest").checked,
    lowest_per_group: grouped && $("#ev-lowest-group").checked,
    longest_at_table: $("#ev-longest").checked,
    ten_tricks: $("#ev-ten").checked,
    one_each: $("#ev-one-each").checked,
    ties: $("#ev-ties").value,
  };
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
    open_join: $("#ev-open-join").checked,
    gather: $("#ev-gather").checked,
    groups: $("#ev-groups").checked,
    prizes: readPrizes(),
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
