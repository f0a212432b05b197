// The host's pages on the laptop: create the evening, players, seating, follow the tables,
// type results from paper cards (keyboard alone), correct results, pause, finish.
import {
  api, byId, contractName, contractShort, el, languageMenu, pickLanguage, setLanguage, t, watch, fill, localOnly } from "./ev.js";

const main = document.getElementById("main");
const errorBox = document.getElementById("error");
let meta = null;
let state = null;
let watcher = null;

function showError(message) {
  errorBox.textContent = message || "";
  errorBox.hidden = !message;
}

async function act(fn) {
  try {
    showError(null);
    return await fn();
  } catch (e) {
    showError(e.message);
    return null;
  }
}

function eveningId() {
  const m = location.pathname.match(/^\/e\/([^/]+)\/host/);
  return m ? m[1] : null;
}

async function start() {
  await setLanguage(pickLanguage());
  languageMenu(document.getElementById("lang"), render);
  meta = await api("GET", "/api/meta");
  const id = eveningId();
  if (id) {
    watcher = watch(`/api/e/${id}`, (data) => {
      state = data;
      render();
    }, showTrouble);
  } else {
    render();
  }
  document.body.dataset.ready = "1";
}

function showTrouble(message) {
  if (message) showError(message);
  else if (errorBox.dataset.trouble) showError(null);
  errorBox.dataset.trouble = message ? "1" : "";
}

function render() {
  document.title = state ? `${state.title} · whistkit` : "whistkit · Félagsvist";
  document.getElementById("title").textContent = state ? state.title : t("new_evening");
  if (!eveningId()) return renderLanding();
  if (!state) return;
  const id = state.id;
  document.getElementById("links").hidden = false;
  const links = {
    "ln-projector": `/e/${id}/projector`,
    "ln-cards": `/e/${id}/print/tables`,
    "ln-scores": `/e/${id}/print/scorecards`,
    "ln-results": `/e/${id}/print/results`,
    "ln-csv": `/e/${id}/export.csv`,
    "ln-json": `/e/${id}/export.json`,
  };
  for (const [k, href] of Object.entries(links)) document.getElementById(k).href = href;
  const active = document.activeElement;
  const focused = active && active !== document.body && active.id;
  const caret = focused && typeof active.selectionStart === "number"
    ? [active.selectionStart, active.selectionEnd] : null;
  // what was being typed survives an update that arrives meanwhile
  const typed = new Map();
  for (const e of main.querySelectorAll("input[id]:not([type=checkbox]), textarea[id]")) {
    if (!e.disabled && e.value) typed.set(e.id, [e.value, e.dataset.ctx]);
  }
  // and so do the choices made in the forms and the panels the host opened or closed
  const chosen = new Map();
  for (const e of main.querySelectorAll("select[id], input[type=checkbox][id][data-keep]")) {
    chosen.set(e.id, e.type === "checkbox" ? e.checked : e.value);
  }
  for (const d of main.querySelectorAll("details[id]")) openPanels.set(d.id, d.open);
  fill(main,
    statusPanel(),
    state.status === "setup" ? playersPanel() : null,
    state.status !== "setup" ? tablesPanel() : null,
    state.seated ? cardsPanel() : null,
    state.status !== "setup" ? entryPanel() : null,
    state.status !== "setup" ? correctionPanel() : null,
    state.status !== "setup" ? standingsPanel() : null,
    state.status !== "setup" ? playersPanel() : null,
    auditPanel(),
  );
  for (const [k, [v, ctx]] of typed) {
    const e = document.getElementById(k);
    if (e && !e.disabled && !e.value && e.dataset.ctx === ctx) e.value = v;
  }
  for (const [k, v] of chosen) {
    const e = document.getElementById(k);
    if (!e) continue;
    if (e.type === "checkbox") e.checked = v;
    else if ([...e.options].some((o) => o.value === v)) e.value = v;
  }
  if (focused) {
    const again = document.getElementById(focused);
    if (again) {
      again.focus();
      if (caret && typeof again.setSelectionRange === "function" && again.type !== "number") {
        again.setSelectionRange(caret[0], caret[1]);
      }
    }
  }
}

// the open or closed state of each collapsible panel, by id, as the host left it
const openPanels = new Map();
function panel(id, openFirst, ...children) {
  return el("details", { class: "panel", id, open: openPanels.has(id) ? openPanels.get(id) : openFirst },
    ...children);
}

// what the last import took in (or why it took nothing), shown under the pasted lines
let importNote = null;

// -- landing: create an evening, or open one of this browser's ----------------------------

async function renderLanding() {
  const mine = await api("GET", "/api/evenings").catch(() => []);
  fill(main,
    mine.length
      ? el("section", { class: "panel" }, el("h2", {}, t("your_evenings")),
          el("ul", { class: "plain" }, mine.map((e) =>
            el("li", {}, el("a", { href: `/e/${e.id}/host` }, e.title), " · ", t(`status_${e.status}`)))))
      : null,
    createForm(),
  );
}

function field(label, input) {
  return el("label", { class: "field" }, el("span", {}, label), input);
}

function createForm() {
  const c = meta.default_config;
  const title = el("input", { id: "f-title", maxlength: "80", value: t("default_title") });
  // choices with long labels are radio buttons: their labels wrap on a phone, where a
  // <select> cuts them off
  const radios = (name, values, on, label) => el("div", { class: "choices", role: "radiogroup", id: name },
    values.map((v) => el("label", { class: "check" },
      el("input", { type: "radio", name, id: `${name}-${v}`, value: v, checked: v === on }), " ", label(v))));
  const preset = radios("f-preset", meta.presets, c.preset, (p) => t(`preset_${p}`));
  const valueOf = (group) => group.querySelector("input:checked").value;
  const hands = el("input", { id: "f-hands", type: "number", min: "1", max: String(meta.max_hands), value: String(c.hands) });
  const perMove = el("select", { id: "f-per-move" },
    [1, 4].map((n) => el("option", { value: String(n), selected: n === c.hands_per_move }, String(n))));
  const sitOut = radios("f-sitout", meta.sit_out_policies, c.sit_out, (p) => t(`sitout_${p}`));
  const absence = el("input", { type: "checkbox", id: "f-credit-absence", checked: c.credit_absence });
  const ties = el("select", { id: "f-ties" },
    meta.tie_rules.map((p) => el("option", { value: p, selected: p === c.prizes.ties }, t(`ties_${p}`))));
  const trumps = el("input", { id: "f-trumps", maxlength: "60", placeholder: "H C D S NT" });
  const trumpField = field(t("trump_order"), trumps);
  const showTrumps = () => { trumpField.hidden = valueOf(preset) === "felagsvist"; };
  preset.addEventListener("change", showTrumps);
  showTrumps();
  const top = el("input", { id: "f-top", type: "number", min: "0", max: String(meta.max_top), value: String(c.prizes.top), class: "small" });
  const perGroup = el("input", { id: "f-top-group", type: "number", min: "0", max: String(meta.max_top), value: String(c.prizes.top_per_group), class: "small" });
  const box = (id, on) => el("input", { type: "checkbox", id, checked: on });
  const series = el("input", { id: "f-series", maxlength: "80", value: c.series || "", placeholder: t("series_placeholder") });
  const lowest = box("f-lowest", c.prizes.lowest);
  const lowestGroup = box("f-lowest-group", c.prizes.lowest_per_group);
  const oneEach = box("f-one-each", c.prizes.one_each);
  const longest = box("f-longest", c.prizes.longest_at_table);
  const ten = box("f-ten", c.prizes.ten_tricks);
  const form = el("form", { class: "panel", id: "create" },
    el("h2", {}, t("new_evening")),
    field(t("evening_title"), title),
    el("fieldset", {}, el("legend", {}, t("preset")), preset),
    field(t("hands"), hands),
    field(t("hands_per_move"), perMove),
    trumpField,
    el("fieldset", {}, el("legend", {}, t("sit_out_policy")), sitOut,
      el("label", { class: "check" }, absence, " ", t("credit_absence")),
      el("p", { class: "sub" }, t("credit_absence_help"))),
    el("fieldset", {}, el("legend", {}, t("prizes")),
      el("label", { class: "check" }, top, " ", t("cfg_top")),
      el("label", { class: "check" }, perGroup, " ", t("cfg_top_per_group")),
      el("label", { class: "check" }, lowest, " ", t("prize_lowest")),
      el("label", { class: "check" }, lowestGroup, " ", t("cfg_lowest_per_group")),
      el("label", { class: "check" }, longest, " ", t("prize_longest_at_table")),
      el("label", { class: "check" }, ten, " ", t("prize_ten_tricks")),
      el("label", { class: "check" }, oneEach, " ", t("cfg_one_each")),
      field(t("ties"), ties)),
    field(t("cfg_series"), series),
    el("button", { type: "submit", id: "f-create", class: "primary" }, t("create")),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const order = trumps.value.toUpperCase().split(/[\s,]+/).filter(Boolean);
    const config = {
      preset: valueOf(preset),
      hands: Number(hands.value),
      hands_per_move: Number(perMove.value),
      trump_order: valueOf(preset) !== "felagsvist" && order.length ? order : null,
      sit_out: valueOf(sitOut),
      credit_absence: absence.checked,
      series: series.value.trim(),
      prizes: {
        top: Number(top.value), top_per_group: Number(perGroup.value),
        lowest: lowest.checked, lowest_per_group: lowestGroup.checked, one_each: oneEach.checked,
        longest_at_table: longest.checked, ten_tricks: ten.checked,
        ties: ties.value,
      },
    };
    act(async () => {
      const made = await api("POST", "/api/evenings", { title: title.value, config });
      location.href = made.url;
    });
  });
  return form;
}

// -- the evening -------------------------------------------------------------------------

function statusPanel() {
  const s = state.status;
  const buttons = [];
  const go = (action) => act(() => api("POST", `/api/e/${state.id}/status`, { action }));
  if (s === "setup" && state.seated) buttons.push(el("button", { id: "btn-start", class: "primary", onclick: () => go("start") }, t("start")));
  if (s === "running") buttons.push(el("button", { id: "btn-pause", onclick: () => go("pause") }, t("pause")));
  if (s === "paused") buttons.push(el("button", { id: "btn-resume", class: "primary", onclick: () => go("resume") }, t("resume")));
  if (s === "running" || s === "paused") {
    buttons.push(el("button", {
      id: "btn-finish",
      onclick: () => { if (confirm(t("finish_sure"))) go("finish"); },
    }, t("finish")));
  }
  const hide = el("input", {
    type: "checkbox", id: "hide-standings", checked: state.hide_standings,
    onchange: (e) => act(() => api("POST", `/api/e/${state.id}/hide`, { hidden: e.target.checked })),
  });
  const cur = state.current;
  const local = localOnly(state.host_link);
  return el("section", { class: "panel status" },
    local ? el("p", { class: "banner", id: "local-links", role: "alert" }, t("local_links", { host: local })) : null,
    el("p", { class: "big", id: "status-line", "data-status": s },
      t(`status_${s}`),
      cur ? ` · ${t("hand_of", { n: cur.number, total: state.hands })} · ${contractName(cur.contract)}` : "",
      cur ? ` · ${t("tables_to_report", { n: cur.waiting.length })}` : ""),
    el("p", { class: "sub" }, t("summary", {
      players: state.players.length, tables: state.tables.length, preset: t(`preset_${state.config.preset}`),
      hands: state.hands,
    })),
    el("div", { class: "buttons" }, buttons, el("label", { class: "check" }, hide, " ", t("hide_standings"))),
    state.host_link ? el("p", { class: "sub" }, t("host_link"), " ", el("code", {}, state.host_link)) : null,
  );
}

// A line of the import format for one player (quoted when the name has a separator).
function playerLine(name, group, fixed) {
  const quoted = /[",;\t]/.test(name) ? `"${name.replaceAll('"', '""')}"` : name;
  return `${quoted}, ${group}${fixed ? ", fixed" : ""}`;
}

// Players: in setup the whole list is edited; once started, late arrivals are added (they
// play from the next hand) and early leavers marked.
function playersPanel() {
  const id = state.id;
  const setup = state.status === "setup";
  const lines = el("textarea", {
    id: "import-text", rows: "8", "data-tp": "import_placeholder", placeholder: t("import_placeholder"),
  });
  const replace = el("input", { type: "checkbox", id: "import-replace", "data-keep": "1" });
  const name = el("input", { id: "add-name", maxlength: "40", placeholder: t("name"), "aria-label": t("name") });
  const group = el("select", { id: "add-group", "aria-label": t("group") },
    el("option", { value: "A" }, t("group_A")), el("option", { value: "B" }, t("group_B")));
  const fixed = el("input", { type: "checkbox", id: "add-fixed", "data-keep": "1" });
  const players = state.players.map((p) => ({
    id: p.id, name: p.name, group: p.group, fixed: p.fixed, other_group: p.other_group,
    arrives: p.arrives, leaves: p.leaves,
  }));
  const save = (list) => act(() => api("POST", `/api/e/${id}/players`, { players: list }));
  const addForm = el("form", { class: "row", id: "add-form" },
    name, group, el("label", { class: "check" }, fixed, " ", t("fixed_seat")),
    el("button", { type: "submit" }, setup ? t("add") : t("add_late")));
  addForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!name.value.trim()) return;
    const ok = setup
      ? await save([...players, { name: name.value, group: group.value, fixed: fixed.checked }])
      : await act(() => api("POST", `/api/e/${id}/import`, { text: playerLine(name.value.trim(), group.value, fixed.checked) }));
    if (ok) {
      const now = document.getElementById("add-name");
      now.value = "";
      now.focus();
    }
  });
  // a name mistyped in the list: mended at any time (the player keeps seat and results)
  const renameButton = (p, i) => el("button", {
    class: "small", id: `rename-${p.id}`, title: t("rename_player", { name: p.name }),
    "aria-label": t("rename_player", { name: p.name }),
    onclick: () => {
      const to = prompt(t("rename_prompt", { name: p.name }), p.name);
      if (to && to.trim() && to.trim() !== p.name) save(players.map((q, j) => (j === i ? { ...q, name: to.trim() } : q)));
    },
  }, "✎");
  const counts = { A: 0, B: 0 };
  for (const p of state.players) counts[p.other_group ? (p.group === "A" ? "B" : "A") : p.group] += 1;
  const cur = state.current ? state.current.number : null;
  const rowEnd = (p, i) => {
    if (setup) {
      return [
        el("td", {}, el("input", {
          type: "checkbox", checked: p.other_group, "aria-label": t("other_group"),
          onchange: (e) => save(players.map((q, j) => (j === i ? { ...q, other_group: e.target.checked } : q))),
        })),
        el("td", {}, el("button", {
          class: "small", "aria-label": t("remove_player", { name: p.name }),
          onclick: () => save(players.filter((_, j) => j !== i)),
        }, "✕")),
      ];
    }
    const when = p.leaves !== null ? t("leaves_after", { n: p.leaves })
      : p.arrives > 1 ? t("arrives_at", { n: p.arrives }) : "";
    const open = cur && state.status !== "finished";
    const setLeaves = (leaves) => save(players.map((q, j) => (j === i ? { ...q, leaves } : q)));
    let action = null;
    if (open && p.leaves === null && cur >= p.arrives) {
      // an action, asked once more: it takes the player out of every later hand
      action = el("button", {
        class: "small", id: `leave-${p.id}`,
        onclick: () => { if (confirm(t("leaves_sure", { name: p.name, n: cur }))) setLeaves(cur); },
      }, t("leaves_now", { n: cur }));
    } else if (open && p.leaves !== null && p.leaves >= cur) {
      // until that hand is played the player can be kept on
      action = el("button", { class: "small", id: `stay-${p.id}`, onclick: () => setLeaves(null) },
        t("leaves_undo"));
    }
    return [
      el("td", {}, p.other_group ? "✓" : ""),
      el("td", {}, when ? el("span", { class: "when" }, when) : null, when && action ? " " : null, action),
    ];
  };
  const list = el("table", { class: "grid", id: "players" },
    el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, t("name")), el("th", {}, t("group")),
      el("th", {}, t("fixed_seat")), el("th", {}, t("other_group")), el("th", {}))),
    el("tbody", {}, state.players.map((p, i) => el("tr", {},
      el("td", {}, String(p.id)), el("td", {}, p.name, " ", renameButton(p, i)), el("td", {}, p.group),
      el("td", {}, p.fixed ? "✓" : ""), rowEnd(p, i)))));
  const uneven = Math.abs(counts.A - counts.B) > 1 && state.config.preset !== "partner";
  const seatButtons = setup ? el("div", { class: "buttons" },
    uneven ? el("button", { id: "btn-balance", onclick: () => act(() => api("POST", `/api/e/${id}/balance`, {})) }, t("balance")) : null,
    el("button", { id: "btn-seat-random", class: "primary", onclick: () => act(() => api("POST", `/api/e/${id}/seat`, { mode: "random" })) }, t("seat_random")),
    el("button", { id: "btn-seat-entered", onclick: () => act(() => api("POST", `/api/e/${id}/seat`, { mode: "as_entered" })) }, t("seat_entered"))) : null;
  const body = [
    el("h2", {}, t("players"), ` (${state.players.length}: ${t("plays_as_counts", { a: counts.A, b: counts.B })})`),
    setup ? null : el("p", { class: "sub", id: "late-help" }, t(state.config.credit_absence ? "late_help" : "late_help_no_credit")),
    addForm,
    el("details", {
      id: "import-panel",
      open: openPanels.has("import-panel") ? openPanels.get("import-panel") : setup && state.players.length === 0,
    },
      el("summary", {}, t("import")),
      el("p", { class: "sub" }, t("import_help")),
      lines,
      el("div", { class: "row" },
        setup ? el("label", { class: "check" }, replace, " ", t("import_replace")) : null,
        el("button", {
          id: "btn-import",
          onclick: async () => {
            showError(null);
            try {
              const made = await api("POST", `/api/e/${id}/import`, { text: lines.value, replace: setup && replace.checked });
              importNote = { ok: true, status: state.status, text: t("imported_n", { n: made.imported.length, names: made.imported.map(([n, g, f]) => `${n} (${g}${f ? `, ${t("fixed_seat")}` : ""})`).join(", ") }) };
              const box = document.getElementById("import-text");
              if (box) box.value = "";
            } catch (e) {
              importNote = { ok: false, status: state.status, text: e.message };
            }
            render();
          },
        }, t("import_button"))),
      importNote && importNote.status === state.status ? el("p", { id: "import-note", role: "status", class: importNote.ok ? "note" : "error" }, importNote.text) : null),
    el("div", { class: "scroll" }, list),
  ];
  if (setup) {
    body.push(el("h2", {}, t("seating")),
      state.seated ? seatingView(state.hand_states[0]) : el("p", { class: "sub" }, t("not_seated")),
      seatButtons);
    return el("section", { class: "panel" }, body);
  }
  return panel("players-panel", false, el("summary", {}, t("players_late")), body);
}

function nameOf(pid) {
  const p = byId(state.players).get(pid);
  return p ? p.name : `#${pid}`;
}

function seatingView(hand) {
  if (!hand) return null;
  return el("div", { class: "tables", id: "seating" },
    hand.tables.map((tb) => el("div", { class: "tcard" },
      el("b", {}, t("table_n", { n: tb.table })),
      el("div", {}, `N ${nameOf(tb.seats.N)} · S ${nameOf(tb.seats.S)}`),
      el("div", {}, `E ${nameOf(tb.seats.E)} · W ${nameOf(tb.seats.W)}`))),
    outList(hand, "sit_out", (label, names) => el("div", { class: "tcard", "data-out": label }, el("b", {}, t(label)), names.map((n) => el("div", {}, n)))),
    outList(hand, "absent", (label, names) => el("div", { class: "tcard", "data-out": label }, el("b", {}, t(label)), names.map((n) => el("div", {}, n)))));
}

// the players of a hand who sit out by the rotation ("sit_out"), or who are not in the
// hall ("absent": not come yet, or gone home): never called sitting out
function outList(hand, reason, make) {
  const names = hand.sitting_out.filter((s) => s.reason === reason).map((s) => nameOf(s.player));
  return names.length ? make(reason === "sit_out" ? "sitting_out" : "not_here", names) : null;
}

// Each table's link and QR code, and its card to print again on its own: a table opened
// for late arrivals needs one at once (the panel opens by itself while such a table is new)
function cardsPanel() {
  const first = state.hand_states.length ? state.hand_states[0].tables.length : state.tables.length;
  const late = state.tables.filter((tb) => tb.number > first);
  return panel("cards-panel", late.length > 0,
    el("summary", {}, t("table_links"), late.length ? ` · ${t("new_tables", { tables: late.map((tb) => tb.number).join(", ") })}` : ""),
    el("div", { class: "tables", id: "table-links" }, state.tables.map((tb) => el("div", {
      class: `tcard link-card${tb.number > first ? " new" : ""}`, "data-table": String(tb.number),
    },
      el("b", {}, t("table_n", { n: tb.number })),
      tb.number > first ? el("span", { class: "sub" }, t("table_for_late")) : null,
      el("img", { class: "qr-small", src: tb.qr, alt: t("qr_alt", { n: tb.number }) }),
      el("div", { class: "link" }, el("a", { href: tb.url, target: "_blank", rel: "noopener" }, tb.url)),
      el("a", { class: "button small", id: `print-card-${tb.number}`, href: `/e/${state.id}/print/tables?table=${tb.number}`, target: "_blank" },
        t("print_this_card"))))));
}

function tablesPanel() {
  const cur = state.current;
  if (!cur) return el("section", { class: "panel" }, el("p", { class: "big" }, t("all_reported")));
  const hand = state.hand_states[cur.number - 1];
  return el("section", { class: "panel" },
    el("h2", {}, t("hand_of", { n: cur.number, total: state.hands }), " · ", contractName(cur.contract)),
    el("div", { class: "tables", id: "table-states" }, hand.tables.map((tb) => {
      const st = tb.result ? "done" : tb.pending ? "pending" : "waiting";
      return el("div", { class: `tcard ${st}`, "data-table": String(tb.table), "data-state": st },
        el("b", {}, t("table_n", { n: tb.table })),
        el("div", {}, `${nameOf(tb.seats.N)} & ${nameOf(tb.seats.S)}`),
        el("div", {}, `${nameOf(tb.seats.E)} & ${nameOf(tb.seats.W)}`),
        el("div", { class: "state" },
          tb.result ? t("result_ns_ew", { ns: tb.result.ns, ew: 13 - tb.result.ns })
            : tb.pending ? t("pending_by", { ns: tb.pending.ns, ew: 13 - tb.pending.ns, name: nameOf(tb.pending.by) })
              : t("waiting")));
    })),
    outList(hand, "sit_out", (label, names) => el("p", { class: "sub", "data-out": label }, t(label), ": ", names.join(", "))),
    outList(hand, "absent", (label, names) => el("p", { class: "sub", "data-out": label }, t(label), ": ", names.join(", "))),
  );
}

// Results from paper cards: one N–S tricks field per table; Enter saves and goes on.
function entryPanel() {
  if (!state.current || state.status === "finished") return null;
  const number = state.current.number;
  const hand = state.hand_states[number - 1];
  const rows = hand.tables.map((tb) => {
    const input = el("input", {
      id: `entry-${tb.table}`, "data-ctx": String(number), type: "number", min: "0", max: "13", inputmode: "numeric",
      class: "tricks", disabled: !!tb.result || state.status === "finished",
      value: tb.result ? String(tb.result.ns) : "",
      placeholder: !tb.result && tb.pending ? String(tb.pending.ns) : null,
      "aria-label": t("ns_tricks_at", { n: tb.table }),
    });
    const ew = el("span", { class: "ew" }, tb.result ? String(13 - tb.result.ns) : "");
    input.addEventListener("input", () => {
      const v = Number(input.value);
      ew.textContent = input.value !== "" && v >= 0 && v <= 13 ? String(13 - v) : "";
    });
    input.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      e.preventDefault();
      const v = input.value.trim();
      if (!/^\d{1,2}$/.test(v) || Number(v) > 13) {
        showError(t("tricks_range"));
        return;
      }
      const next = nextOpenInput(tb.table);
      // a phone's entry waiting for confirmation is replaced only knowingly
      const now = state.hand_states[number - 1].tables.find((x) => x.table === tb.table);
      const pend = now && now.pending;
      const replace = !!pend && pend.ns !== Number(v);
      if (replace && !confirm(t("replace_pending_sure", {
        table: tb.table, name: nameOf(pend.by), ns: pend.ns, ew: 13 - pend.ns, mine: Number(v), mine_ew: 13 - Number(v),
      }))) return;
      act(async () => {
        await api("POST", `/api/e/${state.id}/result`, { hand: number, table: tb.table, ns: Number(v), ...(replace ? { replace: true } : {}) });
        if (next) setTimeout(() => document.getElementById(next)?.focus(), 0);
      });
    });
    return el("tr", { class: !tb.result && tb.pending ? "pending" : null },
      el("td", {}, t("table_n", { n: tb.table })),
      el("td", {}, `${nameOf(tb.seats.N)} & ${nameOf(tb.seats.S)}`),
      el("td", {}, input),
      el("td", {}, ew),
      el("td", {}, `${nameOf(tb.seats.E)} & ${nameOf(tb.seats.W)}`),
      el("td", { class: "pend", id: `pending-${tb.table}` }, !tb.result && tb.pending
        ? t("pending_phone", { name: nameOf(tb.pending.by), ns: tb.pending.ns, ew: 13 - tb.pending.ns }) : ""));
  });
  function nextOpenInput(after) {
    const open = hand.tables.filter((tb) => !tb.result && tb.table !== after).map((tb) => tb.table);
    const later = open.filter((n) => n > after);
    const n = later.length ? later[0] : open[0];
    return n ? `entry-${n}` : null;
  }
  return el("section", { class: "panel" },
    el("h2", {}, t("enter_from_paper"), " · ", t("hand_n", { n: number })),
    el("p", { class: "sub" }, t("enter_help")),
    el("div", { class: "scroll" }, el("table", { class: "grid entry" },
      el("thead", {}, el("tr", {}, el("th", {}, t("table")), el("th", {}, t("side_NS")), el("th", {}, t("tricks_ns")), el("th", {}, t("tricks_ew")), el("th", {}, t("side_EW")), el("th", {}))),
      el("tbody", {}, rows))));
}

function correctionPanel() {
  const done = [];
  for (const h of state.hand_states) for (const tb of h.tables) if (tb.result) done.push([h, tb]);
  if (!done.length) return null;
  const hand = el("input", { id: "corr-hand", type: "number", min: "1", max: String(state.hands), class: "small" });
  const table = el("input", { id: "corr-table", type: "number", min: "1", max: String(state.tables.length), class: "small" });
  const ns = el("input", { id: "corr-ns", type: "number", min: "0", max: "13", class: "small" });
  const reason = el("input", { id: "corr-reason", maxlength: "200", placeholder: t("reason") });
  const form = el("form", { class: "row", id: "correct-form" },
    field(t("hand"), hand), field(t("table"), table), field(t("ns_tricks"), ns), field(t("reason"), reason),
    el("button", { type: "submit", id: "corr-save" }, t("correct")));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    // an empty or a non-numeric field is named, never read as 0
    const checks = [[hand, t("hand"), 1, state.hands], [table, t("table"), 1, state.tables.length], [ns, t("ns_tricks"), 0, 13]];
    for (const [input, label, low, high] of checks) {
      const v = input.value.trim();
      if (!/^\d{1,3}$/.test(v) || Number(v) < low || Number(v) > high) {
        showError(t("field_whole", { field: label, low, high }));
        input.focus();
        return;
      }
    }
    act(async () => {
      await api("POST", `/api/e/${state.id}/correct`, {
        hand: Number(hand.value), table: Number(table.value), ns: Number(ns.value), reason: reason.value,
      });
      for (const k of ["corr-hand", "corr-table", "corr-ns", "corr-reason"]) document.getElementById(k).value = "";
    });
  });
  // the grid of every confirmed result: hands down, tables across; click one to correct it
  const tables = state.tables.map((x) => x.number);
  const grid = el("table", { class: "grid results", id: "results-grid" },
    el("thead", {}, el("tr", {}, el("th", {}, t("hand")), tables.map((n) => el("th", {}, String(n))))),
    el("tbody", {}, state.hand_states.map((h) => el("tr", {},
      el("th", {}, `${h.number} ${contractShort(h.contract)}`),
      tables.map((n) => {
        const tb = h.tables.find((x) => x.table === n);
        const r = tb && tb.result;
        return el("td", {
          class: r && r.ns !== r.moved_ns ? "corrected" : "",
          onclick: r ? () => { hand.value = h.number; table.value = n; ns.value = r.ns; ns.focus(); } : null,
        }, r ? String(r.ns) : "");
      })))));
  return el("section", { class: "panel" },
    el("h2", {}, t("corrections")), el("p", { class: "sub" }, t("correct_help")), form,
    el("div", { class: "scroll" }, grid));
}

function standingsPanel() {
  const groups = {};
  for (const row of state.standings) (groups[row.group] ||= []).push(row);
  return el("section", { class: "panel" },
    el("h2", {}, t("standings")),
    el("div", { class: "cols", id: "standings" }, Object.keys(groups).sort().map((g) =>
      el("table", { class: "grid", "data-group": g },
        el("caption", {}, t(`group_${g}`)),
        el("tbody", {}, groups[g].map((r) => el("tr", {},
          el("td", {}, String(r.rank)), el("td", {}, r.name), el("td", { class: "num", "data-player": String(r.player) }, fmt(r.total)))))))),
    state.prizes.length ? prizesView(state.prizes) : null,
    halfTimeView(),
    seriesView());
}

// the running total over the evenings of the series (by name), each group ranked
function seriesView() {
  const series = state.series;
  if (!series || !series.standings.length) return null;
  const groups = {};
  for (const row of series.standings) (groups[row.group] ||= []).push(row);
  return panel("series-panel", false,
    el("summary", {}, t("series_total", { name: series.name, n: series.evenings.length })),
    el("p", { class: "sub" }, series.evenings.map((e) => e.title).join(" · ")),
    el("div", { class: "cols", id: "series" }, Object.keys(groups).sort().map((g) =>
      el("table", { class: "grid", "data-group": g },
        el("caption", {}, t(`group_${g}`)),
        el("tbody", {}, groups[g].map((r) => el("tr", {},
          el("td", {}, String(r.rank)), el("td", {}, r.name),
          el("td", { class: "num", "data-name": r.name }, fmt(r.total)),
          el("td", { class: "num sub" }, t("evenings_n", { n: r.evenings })))))))));
}

// the standings at the break (after the first half of the hands), to read out or keep
function halfTimeView() {
  const half = state.half_time;
  if (!half) return null;
  return panel("half-panel", false,
    el("summary", {}, t("half_time", { n: half.after })),
    el("div", { class: "cols", id: "half-time" }, Object.keys(half.standings).sort().map((g) =>
      el("table", { class: "grid", "data-group": g },
        el("caption", {}, t(`group_${g}`)),
        el("tbody", {}, half.standings[g].map((r) => el("tr", {},
          el("td", {}, String(r.rank)), el("td", {}, r.name), el("td", { class: "num", "data-player": String(r.player) }, fmt(r.total)))))))));
}

export function fmt(x) {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

function prizesView(prizes) {
  return el("div", { id: "prizes" }, el("h3", {}, t(state.status === "finished" ? "prizes" : "prizes_so_far")),
    el("ul", { class: "plain" }, prizes.map((p) => {
      // the place only where the prize has several; what it was won with
      const places = prizes.filter((q) => q.category === p.category).length;
      const what = places > 1 ? t("prize_place", { prize: t(`prize_${p.category}`), n: p.place }) : t(`prize_${p.category}`);
      return el("li", { "data-category": p.category }, `${what}: ${p.players.map(nameOf).join(", ")} (${fmt(p.value)})`);
    })));
}

function auditText(a) {
  const d = a.detail || {};
  if (a.action === "correct") return t("audit_correct", { hand: d.hand, table: d.table, from: d.from, to: d.to, reason: d.reason || "" });
  if (a.action === "enter") {
    return `${t("audit_result", { hand: d.hand, table: d.table, ns: d.ns })} · ${t("audit_entered", { entered: who(d.by_name, d.phone) })}`;
  }
  if (a.action === "result") {
    const line = t("audit_result", { hand: d.hand, table: d.table, ns: d.ns });
    if (!d.confirmed_by_name && !d.entered_by_name) return `${line} · ${t("audit_entered", { entered: t("audit_host") })}`;
    return `${line} · ${t("audit_who", { entered: who(d.entered_by_name, d.entered_phone), confirmed: who(d.confirmed_by_name, d.confirmed_phone) })}`;
  }
  return "";
}

// who entered or confirmed a result: the player's name and their phone's label; the host
// when there is no player (typed on this page)
function who(name, phone) {
  if (!name) return t("audit_host");
  return phone ? t("audit_phone", { name, phone }) : name;
}

function auditPanel() {
  if (!state || !state.audit.length) return null;
  return panel("audit", false,
    el("summary", {}, t("audit_log")),
    el("ul", { class: "plain small" }, state.audit.map((a) => el("li", {},
      `${new Date(a.at * 1000).toLocaleTimeString()} · ${a.actor} · ${a.action} ${auditText(a)}`))));
}

start();
