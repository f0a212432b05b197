// The new-game dialog: variant, bot level, rules options, deal number; "Play with friends"
// (friends.js) for a table shared with other people.

import { has, t } from "./i18n.js";
import { startGame } from "./connection.js";
import { fillFriends, startFriends } from "./friends.js";
import { openDialog } from "./sheet.js";
import { PACES, pace } from "./motion.js";
import { $, app } from "./state.js";

export async function loadMeta() {
  if (!app.meta) app.meta = await (await fetch("/api/meta")).json();
  return app.meta;
}

export function optionLabel(key, value) {
  if (typeof value === "boolean") return t(value ? "yes" : "no");
  const k = `opt_${key}_${value}`;
  return has(k) ? t(k) : String(value);
}

export function fillOptions() {
  const meta = app.meta;
  const box = $("#new-options");
  for (const el of [...box.children]) if (el.tagName !== "LEGEND") el.remove();
  const variant = meta.variants.find((x) => x.name === $("#new-variant").value) || meta.variants[0];
  for (const opt of variant.options) {
    const label = document.createElement("label");
    const span = document.createElement("span");
    span.textContent = has(`opt_${opt.key}`) ? t(`opt_${opt.key}`) : opt.key;
    let input;
    if (opt.kind === "bool") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = opt.default;
      label.classList.add("check");
      label.append(input, span);
    } else if (opt.kind === "int") {
      input = document.createElement("input");
      input.type = "number";
      input.min = "1";
      input.step = "1";
      input.required = true; // empty would be sent as 0
      input.value = String(opt.default);
      label.append(span, input);
    } else {
      input = document.createElement("select");
      for (const c of opt.choices) {
        const o = document.createElement("option");
        o.value = c;
        o.textContent = optionLabel(opt.key, c);
        o.selected = c === opt.default;
        input.append(o);
      }
      label.append(span, input);
    }
    input.dataset.option = opt.key;
    input.dataset.kind = opt.kind;
    input.name = `opt_${opt.key}`;
    if (opt.laws) label.dataset.laws = "true";
    box.append(label);
  }
  box.hidden = variant.options.length === 0;
  const mode = box.querySelector('[data-option="play_mode"]');
  if (mode) mode.addEventListener("change", showLawsOptions);
  showLawsOptions();
}

// the options that rule on irregularities are shown only in laws mode
export function showLawsOptions() {
  const mode = $('#new-options [data-option="play_mode"]');
  const laws = Boolean(mode) && mode.value === "laws";
  for (const el of document.querySelectorAll('#new-options [data-laws="true"]')) el.hidden = !laws;
}

export async function openNew() {
  const meta = await loadMeta();
  const vs = $("#new-variant");
  const keep = vs.value;
  vs.replaceChildren();
  for (const v of meta.variants) {
    const o = document.createElement("option");
    o.value = v.name;
    o.textContent = has(`variant_${v.name}`) ? t(`variant_${v.name}`) : v.title;
    vs.append(o);
  }
  vs.value = keep || meta.default_variant || meta.variants[0].name;
  const ls = $("#new-level");
  const keepLevel = ls.value;
  ls.replaceChildren();
  for (const l of meta.levels) {
    const o = document.createElement("option");
    o.value = l;
    o.textContent = has(`level_${l}`) ? t(`level_${l}`) : l;
    ls.append(o);
  }
  ls.value = keepLevel || meta.default_level;
  fillOptions();
  fillPace();
  fillFriends(meta);
  $("#new-error").textContent = "";
  // a game in progress is left, not lost: it can be continued from Games
  const playing = Boolean(app.view && !app.view.winner);
  const warn = $("#new-warn");
  warn.hidden = !playing;
  warn.textContent = playing ? t("confirm_text") : "";
  openDialog("#dlg-new");
  (playing ? $("#new-cancel") : $("#new-start")).focus();
}

// N or "New game" in the middle of a game asks first
export function askNew() {
  if (app.view && !app.view.winner) {
    openDialog("#dlg-confirm");
    $("#confirm-no").focus();
    return;
  }
  openNew();
}

function fillPace() {
  const sel = $("#pace");
  sel.replaceChildren();
  for (const p of PACES) {
    const o = document.createElement("option");
    o.value = p;
    o.textContent = t(`pace_${p}`);
    sel.append(o);
  }
  sel.value = PACES.includes(pace()) ? pace() : "normal";
}

export async function startNew() {
  const options = {};
  for (const el of document.querySelectorAll("#new-options [data-option]")) {
    const kind = el.dataset.kind;
    options[el.dataset.option] = kind === "bool" ? el.checked : kind === "int" ? Number(el.value) : el.value;
  }
  if ($("#new-friends").checked) {
    await startFriends($("#new-variant").value, $("#new-level").value, options);
    return;
  }
  const seedText = $("#new-seed").value.trim();
  const body = { variant: $("#new-variant").value, level: $("#new-level").value, options };
  if (seedText) {
    if (!/^\d{1,15}$/.test(seedText)) {
      $("#new-error").textContent = t("bad_seed", { seed: seedText });
      return;
    }
    body.seed = Number(seedText);
  }
  const r = await fetch("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const data = await r.json();
  if (!r.ok) {
    $("#new-error").textContent = t("error", { message: data.error });
    return;
  }
  $("#dlg-new").close();
  startGame(data.id, data.seat, data.token);
}
