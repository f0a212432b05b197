// The whistkit web game: renders the seat's view from the server and sends its actions.
// The server is authoritative; this page only shows what the server sends for its seat.

import { LANGUAGES, SUIT_SYMBOL, cardLabel, has, language, languageName, pickLanguage, setLanguage, t } from "./i18n.js";

const GAME_KEY = "whistkit.game";
const TOKEN_KEY = "whistkit.token";
const SEATS = ["N", "E", "S", "W"];
const RANKS = "23456789TJQKA";

const $ = (sel) => document.querySelector(sel);

const app = {
  ws: null,
  game: localStorage.getItem(GAME_KEY),
  token: localStorage.getItem(TOKEN_KEY), // the secret that opens our seat
  seat: "S",
  version: 0,
  view: null,
  meta: null,
  selected: 0,
  liveTrick: [], // cards of the trick in progress, from the events
  doneTrick: null, // the last completed trick, shown until the next card is played
  typed: "", // a rank typed, waiting for its suit
  typedAt: 0,
  message: null, // a refusal or error shown in the status line
  retry: 0,
  resultShown: null, // the game whose result dialog has been shown
  handNote: null, // the last hand's points, shown until the next hand's first card
  picking: null, // laws mode: the kind of action whose card is being chosen ("Correct")
  hint: null, // the server's hint for this position: { v, action }, until the position changes
  hintAsked: -1, // the version a hint was asked for (one request per position)
};

// public facts drawn as a card beside a seat: the turned-up trump beside the dealer,
// your own bottom card beside you (maps of seats to cards are drawn beside those seats)
const CARD_BESIDE = { turned: "dealer", your_bottom_card: "me" };
// public facts the page shows in its own way, or not at all
const PUBLIC_HIDDEN = new Set(["trick_leaders", "waiting_for", "games"]);

function publicKey(key) {
  return key.replace(/ /g, "_");
}

function publicName(key) {
  return has(`public_${key}`) ? t(`public_${key}`) : key;
}

// honours and penalties come as [NS, EW] or {NS, EW}
function pair(value) {
  if (Array.isArray(value)) return [value[0] ?? 0, value[1] ?? 0];
  return [value.NS ?? 0, value.EW ?? 0];
}

function nonzero(value) {
  return Boolean(value) && pair(value).some((x) => x);
}

// -- seats on the screen ---------------------------------------------------------------

function posOf(seat) {
  // you at the bottom, your partner at the top, clockwise to your left
  const d = (SEATS.indexOf(seat) - SEATS.indexOf(app.seat) + 4) % 4;
  return ["bottom", "left", "top", "right"][d];
}

function seatName(seat) {
  if (seat === app.seat) return t("you");
  return t(`seat_${seat}`);
}

// "West won the trick", or in the second person for you (the verb agrees in most languages)
function trickWonText(seat) {
  return seat === app.seat ? t("you_won_trick") : t("trick_won_by", { seat: seatName(seat) });
}

function sideOf(seat) {
  return "NS".includes(seat) ? "NS" : "EW";
}

// -- the connection ---------------------------------------------------------------------

function connect() {
  if (!app.game) return;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws`);
  app.ws = ws;
  ws.onopen = () => {
    app.retry = 0;
    ws.send(JSON.stringify({ type: "join", game: app.game, seat: app.seat, token: app.token, since: app.version }));
  };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => {
    if (app.ws !== ws) return;
    app.ws = null;
    showMessage(t("reconnecting"));
    app.retry = Math.min(app.retry + 1, 10);
    setTimeout(connect, 200 * app.retry);
  };
}

function send(msg) {
  if (msg.type === "play" || msg.type === "action") msg = { ...msg, v: app.version }; // the version seen: a stale action is refused
  if (app.ws && app.ws.readyState === WebSocket.OPEN) app.ws.send(JSON.stringify(msg));
}

function onMessage(msg) {
  if (msg.type === "event") {
    app.version = msg.v;
    if (msg.event) onEvent(msg.event);
    if (msg.view) setView(msg.view);
  } else if (msg.type === "state") {
    app.version = msg.v;
    app.message = null;
    app.liveTrick = msg.view.trick.slice();
    app.doneTrick = msg.view.trick.length ? null : msg.view.last_trick;
    setView(msg.view);
  } else if (msg.type === "error") {
    if (msg.code === "unknown_game" || msg.code === "forbidden" || (msg.code === "bad_seat" && !app.view)) {
      localStorage.removeItem(GAME_KEY);
      app.game = null;
      if (app.ws) { const ws = app.ws; app.ws = null; ws.close(); }
      openNew();
      return;
    }
    app.hintAsked = -1; // a refused or failed hint may be asked again
    showMessage(refusalText(msg));
  } else if (msg.type === "ack") {
    app.message = null;
  } else if (msg.type === "hint") {
    if (msg.v !== app.version) return; // the position has changed since: stale
    app.hint = { v: msg.v, action: msg.action };
    app.message = null;
    render();
  }
}

function onEvent(ev) {
  if (ev.type === "deal") {
    app.liveTrick = [];
  } else if (ev.type === "hand_end") {
    // the hand's points (and honours, in classic whist) for a moment in the status line
    const r = ev.result;
    let text = t("hand_points", { n: r.number, ns: r.points.NS, ew: r.points.EW });
    if (r.extra && nonzero(r.extra.honours)) text += ` · ${t("honours")} ${pair(r.extra.honours).join("–")}`;
    app.handNote = text;
  } else if (ev.type === "play") {
    if (app.liveTrick.length === 0) app.doneTrick = null;
    app.liveTrick.push({ seat: ev.seat, card: ev.card });
    if (ev.trick_complete) {
      app.doneTrick = { cards: app.liveTrick, winner: ev.winner };
      app.liveTrick = [];
    }
  }
}

// -- rendering ---------------------------------------------------------------------------

function cardImg(code) {
  const img = document.createElement("img");
  img.src = `/static/cards/${code}.svg`;
  img.alt = "";
  img.draggable = false;
  return img;
}

function cardFace(code) {
  const span = document.createElement("span");
  span.className = "card face";
  span.dataset.card = code;
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", cardLabel(code));
  span.append(cardImg(code));
  return span;
}

function contractText(contract) {
  if (!contract) return t("contract_bidding");
  const sym = contract.trump ? SUIT_SYMBOL[contract.trump] + " " : "";
  let text = sym + t(`contract_${contract.code}`);
  if (contract.aces_low) text += ` (${t("aces_low")})`;
  return text;
}

function setView(view) {
  app.view = view;
  app.seat = view.seat;
  render();
}

function render() {
  const v = app.view;
  if (!v) return;
  if (app.hint && (app.hint.v !== app.version || v.to_play !== app.seat)) app.hint = null;
  const table = $("#table");
  table.dataset.turn = v.to_play || "";
  table.dataset.myTurn = String(v.to_play === app.seat);
  table.dataset.phase = v.phase;
  table.dataset.version = String(app.version);

  // above the table: "3/12 · Grand"
  const info = $("#hand-info");
  info.dataset.hand = String(v.hand_number);
  info.dataset.contract = v.contract ? v.contract.code : "";
  const num = v.hands_total ? t("hand_total", { n: v.hand_number, total: Math.max(v.hands_total, v.hand_number) }) : t("hand_open", { n: v.hand_number });
  info.textContent = `${num} · ${contractText(v.contract)}`;
  if (v.contract && v.contract.declarer) info.textContent += ` · ${t("declarer", { seat: seatName(v.contract.declarer) })}`;

  const mySide = sideOf(app.seat);
  $("[data-score-ns]").textContent = String(v.score.NS);
  $("[data-score-ew]").textContent = String(v.score.EW);
  const [weEl, theyEl] = document.querySelectorAll(".scores .score > span");
  weEl.textContent = mySide === "NS" ? `${t("we")} (${t("side_ns")})` : `${t("they")} (${t("side_ns")})`;
  theyEl.textContent = mySide === "EW" ? `${t("we")} (${t("side_ew")})` : `${t("they")} (${t("side_ew")})`;

  // while bidding (Swedish bottom cards) the first leader is not known yet
  const roles = [t("dealt_by", { seat: seatName(v.dealer) })];
  if (v.phase !== "bid") roles.push(t("leader_is", { seat: seatName(v.first_leader) }));
  $("#roles").textContent = roles.join(" · ");

  renderSeats(v);
  renderPublicInfo(v);
  renderTrick(v);
  renderHand(v);
  renderActions(v);
  renderStatus(v);
  renderResult(v);
  if ($("#dlg-sheet").open) renderSheet();
  if ($("#dlg-last").open) renderLast();
}

function renderSeats(v) {
  for (const seat of SEATS) {
    const pos = posOf(seat);
    const el = pos === "bottom" ? $("#me") : document.querySelector(`.seat[data-pos="${pos}"]`);
    el.replaceChildren();
    el.dataset.seat = seat;
    el.classList.toggle("to-play", v.to_play === seat);
    const name = document.createElement("div");
    name.className = "name";
    const role = seat === app.seat ? "" : seat === partnerOf(app.seat) ? ` (${t("partner")})` : "";
    name.textContent = seatName(seat) + role;
    el.append(name);
    const badges = document.createElement("div");
    badges.className = "badges";
    if (seat === v.dealer) badges.append(badge(t("dealer"), "dealer"));
    if (seat === v.leader && v.phase === "play") badges.append(badge(t("leads"), "leader")); // leads this trick
    if (badges.childElementCount) el.append(badges);
    if (pos !== "bottom") {
      const count = document.createElement("div");
      count.className = "count";
      count.textContent = t("cards_left", { n: v.hand_sizes[seat] });
      el.append(count);
    }
    // public cards beside their owner: revealed bottom cards, exposed cards, the
    // turned-up trump beside the dealer, your own bottom card beside you
    for (const [rawKey, value] of Object.entries(v.public || {})) {
      const key = publicKey(rawKey);
      let codes = [];
      if (isSeatCards(value) && value[seat]) codes = [].concat(value[seat]);
      else if (isCard(value) && CARD_BESIDE[key] === "dealer" && seat === v.dealer) codes = [value];
      else if (isCard(value) && CARD_BESIDE[key] === "me" && seat === app.seat && !shownBeside(v, seat, value)) codes = [value];
      if (codes.length) {
        const box = document.createElement("div");
        box.className = "public";
        box.dataset.public = key;
        const label = document.createElement("span");
        label.className = "label";
        label.textContent = publicName(key);
        const cards = document.createElement("div");
        cards.className = "cards";
        for (const code of codes) cards.append(publicCard(code));
        box.append(label, cards);
        el.append(box);
      }
    }
  }
}

// is ``code`` already drawn beside ``seat`` by a map of seats to cards (a revealed card)?
function shownBeside(v, seat, code) {
  return Object.values(v.public || {}).some((x) => isSeatCards(x) && [].concat(x[seat] || []).includes(code));
}

// a public card; an exposed card that we may call is a button that calls it
function publicCard(code) {
  const call = (app.view.irregular || []).find((a) => a.type === "action" && a.action.kind === "Call" && a.action.card === code);
  const face = cardFace(code);
  if (!call) return face;
  const b = document.createElement("button");
  b.type = "button";
  b.className = "call";
  b.dataset.call = code;
  b.setAttribute("aria-label", t("action_Call", { card: cardLabel(code) }));
  b.append(face);
  b.addEventListener("click", () => send({ type: "action", action: call.action }));
  return b;
}

// public facts that belong to no seat (games won, the rubber, ...), as one line of text
function renderPublicInfo(v) {
  const parts = [];
  for (const [rawKey, value] of Object.entries(v.public || {})) {
    const key = publicKey(rawKey);
    if (PUBLIC_HIDDEN.has(key) || isSeatCards(value) || (isCard(value) && CARD_BESIDE[key])) continue;
    if (value === true) { parts.push(publicName(key)); continue; }
    let text = formatValue(value);
    const lead = key === "must_lead" && typeof value === "string" && /^([NESW]) (\w+)$/.exec(value);
    if (lead) {
      const suit = "SHDC"[["spades", "hearts", "diamonds", "clubs"].indexOf(lead[2])];
      text = `${seatName(lead[1])}: ${suit ? t(`suit_${suit}`) : lead[2]}`;
    }
    parts.push(`${publicName(key)}: ${text}`);
  }
  const match = v.match || {};
  if (Array.isArray(match.games) && match.games.length) {
    // each game as its winner and the winner's score first: "E–W 6–1 (2)"
    const games = match.games.map((g) => {
      const score = g.score ? (g.winner === "EW" ? `${g.score.EW}–${g.score.NS}` : `${g.score.NS}–${g.score.EW}`) : "";
      return `${formatValue(g.winner)} ${score}${g.value ? ` (${g.value})` : ""}`;
    });
    parts.push(`${t("public_games")}: ${games.join(", ")}`);
  }
  if (match.rubber && match.rubber.winner) {
    parts.push(t("rubber_won", { side: formatValue(match.rubber.winner), net: match.rubber.net }));
  }
  const el = $("#public-info");
  el.textContent = parts.join(" · ");
  el.hidden = parts.length === 0;
}

function isCard(value) {
  return typeof value === "string" && /^[2-9TJQKA][SHDC]$/.test(value);
}

function isSeatCards(value) {
  return value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0
    && Object.entries(value).every(([k, c]) => SEATS.includes(k)
      && (isCard(c) || c === null || (Array.isArray(c) && c.every(isCard))));
}

function formatValue(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "boolean") return t(value ? "yes" : "no");
  if (isCard(value)) return cardLabel(value);
  if (SEATS.includes(value)) return seatName(value);
  if (value === "NS" || value === "EW") return t(value === "NS" ? "side_ns" : "side_ew");
  if (Array.isArray(value)) return value.map(formatValue).join(", ");
  if (typeof value === "object") {
    if ("NS" in value && "EW" in value) return `${t("side_ns")} ${formatValue(value.NS)}, ${t("side_ew")} ${formatValue(value.EW)}`;
    return Object.entries(value).map(([k, x]) => `${has(`public_${k}`) ? t(`public_${k}`) : k} ${formatValue(x)}`).join(", ");
  }
  return String(value);
}

function partnerOf(seat) {
  return SEATS[(SEATS.indexOf(seat) + 2) % 4];
}

function badge(text, cls) {
  const b = document.createElement("span");
  b.className = `badge ${cls}`;
  b.textContent = text;
  return b;
}

function renderTrick(v) {
  let cards = v.trick;
  let done = null;
  if (cards.length === 0 && app.doneTrick) {
    done = app.doneTrick;
    cards = done.cards;
  }
  const area = document.querySelector("[data-trick]");
  area.setAttribute("aria-label", t("trick_area"));
  area.classList.toggle("done", Boolean(done));
  for (const slot of area.querySelectorAll(".slot")) slot.replaceChildren();
  for (const { seat, card } of cards) {
    const face = cardFace(card);
    face.dataset.seat = seat;
    if (done && done.winner === seat) face.classList.add("winner");
    area.querySelector(`[data-slot="${posOf(seat)}"]`).append(face);
  }
}

function legalCards(v) {
  const set = new Map();
  if (app.picking) {
    // laws mode: choosing the card of a correction or a replacement
    for (const a of v.irregular || []) {
      if (a.type === "action" && a.action.kind === app.picking) set.set(a.action.card, a);
    }
    return set;
  }
  for (const a of v.legal) {
    if (a.type === "play") set.set(a.card, a);
    else if (a.type === "action" && typeof a.action.card === "string") set.set(a.action.card, a);
  }
  return set;
}

// laws mode: cards that may be played although not lawfully (a revoke)
function irregularCards(v) {
  const set = new Map();
  if (app.picking) return set;
  for (const a of v.irregular || []) if (a.type === "play") set.set(a.card, a);
  return set;
}

function renderHand(v) {
  const hand = $("#hand");
  hand.setAttribute("aria-label", t("your_hand"));
  if (app.picking && !(v.irregular || []).some((a) => a.type === "action" && a.action.kind === app.picking)) app.picking = null;
  const legal = legalCards(v);
  const irregular = irregularCards(v);
  hand.dataset.picking = app.picking || "";
  const hadFocus = hand.contains(document.activeElement);
  hand.replaceChildren();
  if (app.selected >= v.hand.length) app.selected = Math.max(0, v.hand.length - 1);
  v.hand.forEach((code, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "card";
    b.dataset.card = code;
    b.setAttribute("aria-label", cardLabel(code));
    b.tabIndex = i === app.selected ? 0 : -1;
    if (legal.has(code)) b.dataset.legal = "true";
    else if (irregular.has(code)) b.dataset.irregular = "true"; // laws mode: playable, unlawful
    else b.setAttribute("aria-disabled", "true");
    if (i === app.selected) b.classList.add("selected");
    if (hintCard() === code) { b.classList.add("hint"); b.dataset.hint = "true"; }
    b.append(cardImg(code));
    b.addEventListener("click", () => { app.selected = i; playCard(code); });
    hand.append(b);
  });
  if (hadFocus) focusSelected();
}

// a button's label for an action: action_<Kind>, or action_<Kind>_<choice>
function actionLabel(action) {
  const kind = action.kind;
  for (const field of ["remedy", "choice"]) {
    if (typeof action[field] === "string" && has(`action_${kind}_${action[field]}`)) return t(`action_${kind}_${action[field]}`);
  }
  if (kind === "ChooseMethod") return t("action_ChooseMethod", { method: optionLabel("revoke_method", action.method) });
  if (kind === "NameSuit") return action.suit >= 0 ? t("action_NameSuit", { suit: t(`suit_${"SHDC"[action.suit]}`) }) : t("action_NameSuit_none");
  if (typeof action.card === "string") return t(`action_${kind}`, { card: cardLabel(action.card) });
  return has(`action_${kind}`) ? t(`action_${kind}`) : t("action_other", { kind });
}

function actionButton(label, kind, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.dataset.action = kind;
  b.textContent = label;
  b.addEventListener("click", onClick);
  return b;
}

// decisions the engine asks for (buttons), and in laws mode the irregular actions:
// a correction or a replacement picks its card from the hand; a call is the exposed card
function renderActions(v) {
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

function renderStatus(v) {
  let text;
  if (app.message) text = app.message;
  else if (v.winner) text = t("result_title");
  else if (app.picking) text = t(`prompt_${app.picking}`);
  else if (v.to_play === app.seat) {
    const special = v.legal.some((a) => a.type === "action");
    text = v.phase === "bid" ? t("prompt_bid") : special && !v.legal.some((a) => a.type === "play") ? t("prompt_action") : t("your_turn");
  } else if (v.to_play) text = t("turn_of", { seat: seatName(v.to_play) });
  else text = t("waiting");
  if (!app.message && v.trick.length === 0 && app.doneTrick && app.doneTrick.winner) {
    text = `${trickWonText(app.doneTrick.winner)} · ${text}`;
  }
  if (!app.message && app.handNote && v.played_count === 0) text = `${app.handNote} · ${text}`;
  if (!app.message && app.hint && !v.winner) text = hintText(app.hint.action);
  $("#status").textContent = text;
}

function showMessage(text) {
  app.message = text;
  $("#status").textContent = text;
  clearTimeout(showMessage.timer);
  showMessage.timer = setTimeout(() => { app.message = null; if (app.view) renderStatus(app.view); }, 4000);
}

function renderResult(v) {
  const dlg = $("#dlg-result");
  const banner = $("#result-banner");
  if (!v.winner) {
    banner.removeAttribute("data-result");
    banner.hidden = true;
    if (dlg.open) dlg.close();
    return;
  }
  const mine = sideOf(app.seat);
  const text = v.winner === "draw" ? t("result_draw") : v.winner === mine ? t("result_win") : t("result_loss");
  let score = t("final_score", { ns: `${t("side_ns")} ${v.score.NS}`, ew: `${v.score.EW} ${t("side_ew")}` });
  // a rubber is won by games, not by the last game's score: say so
  const rubber = v.match && v.match.rubber;
  if (rubber && rubber.winner) score = `${t("rubber_won", { side: formatValue(rubber.winner), net: rubber.net })} · ${score}`;
  $("#result-text").textContent = text;
  $("#result-score").textContent = score;
  banner.dataset.result = v.winner;
  banner.hidden = false;
  $("#banner-text").textContent = `${text} ${score}`;
  // shown once per game; the banner attribute stays for as long as the game is over
  if (app.resultShown !== app.game && !document.querySelector("dialog[open]")) {
    app.resultShown = app.game;
    dlg.showModal();
  }
}

// -- hints -------------------------------------------------------------------------------

// the card of the hint in our hand (a card to play, or the Swedish bottom card to show)
function hintCard() {
  if (!app.hint) return null;
  const a = app.hint.action;
  if (a.type === "play") return a.card;
  return a.type === "action" && typeof a.action.card === "string" ? a.action.card : null;
}

function hintText(a) {
  if (a.type === "play") return t("hint_card", { card: shortCard(a.card) });
  if (a.action.kind === "BottomCard") return t("hint_bottom", { card: shortCard(a.action.card) });
  return t("hint_action", { action: actionLabel(a.action) });
}

// H or the Hint button: ask the server what a strong player would do now
function askHint() {
  const v = app.view;
  if (!v) return;
  if (v.winner) return showMessage(t("refused_over"));
  if (v.to_play !== app.seat || !v.legal.length) return showMessage(t("hint_not_turn"));
  if (app.hint) { render(); return; } // already shown for this position
  if (app.hintAsked === app.version) return; // on its way
  app.hintAsked = app.version;
  showMessage(t("hint_working"));
  send({ type: "hint" });
}

// -- playing -------------------------------------------------------------------------------

function refusalText(msg) {
  const map = { not_your_turn: "refused_turn", game_over: "refused_over" };
  if (map[msg.code]) return t(map[msg.code]);
  if (msg.code === "illegal") return t("refused_other", { reason: msg.message });
  return t("error", { message: msg.message });
}

function playCard(code) {
  const v = app.view;
  if (!v) return;
  if (v.winner) return showMessage(t("refused_over"));
  if (!v.hand.includes(code)) return showMessage(t("refused_not_held"));
  if (v.to_play !== app.seat && !app.picking) return showMessage(t("refused_turn"));
  const legal = legalCards(v);
  let action = legal.get(code);
  if (app.picking) {
    if (!action) return showMessage(t(`prompt_${app.picking}`));
    app.picking = null;
    app.message = null;
    send({ type: "action", action: action.action });
    return;
  }
  if (!action) action = irregularCards(v).get(code); // laws mode: a revoke
  if (!action) {
    const led = v.trick.length ? v.trick[0].card[1] : null;
    if (led && v.hand.some((c) => c[1] === led)) return showMessage(t("refused_follow", { suit: t(`suit_${led}`) }));
    return showMessage(t("refused_action"));
  }
  app.message = null;
  send(action.type === "play" ? { type: "play", card: code } : { type: "action", action: action.action });
}

function focusSelected() {
  const b = $("#hand").children[app.selected];
  if (b) b.focus();
}

function select(delta) {
  const n = app.view ? app.view.hand.length : 0;
  if (!n) return;
  app.selected = (app.selected + delta + n) % n;
  for (const [i, b] of [...$("#hand").children].entries()) {
    b.classList.toggle("selected", i === app.selected);
    b.tabIndex = i === app.selected ? 0 : -1;
  }
  focusSelected();
}

// -- dialogs -----------------------------------------------------------------------------

function closeDialogs() {
  for (const d of document.querySelectorAll("dialog[open]")) d.close();
}

function openDialog(id) {
  closeDialogs();
  $(id).showModal();
}

function renderLast() {
  const body = $("#last-body");
  body.replaceChildren();
  const v = app.view;
  const last = v && v.trick.length === 0 && app.doneTrick ? app.doneTrick : v && v.last_trick;
  if (!last) {
    body.textContent = t("no_last");
    return;
  }
  for (const { seat, card } of last.cards) {
    const row = document.createElement("div");
    row.className = "played";
    const who = document.createElement("span");
    who.textContent = seatName(seat);
    row.append(who, cardFace(card));
    if (seat === last.winner) row.classList.add("winner");
    body.append(row);
  }
  if (last.winner) {
    const p = document.createElement("p");
    p.textContent = trickWonText(last.winner);
    body.append(p);
  }
}

function renderSheet() {
  const body = $("#sheet-body");
  body.replaceChildren();
  const v = app.view;
  if (!v || !v.results.length) {
    body.textContent = t("no_hands");
    return;
  }
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  const cols = ["col_hand", "col_contract", "col_dealer", "col_tricks", "col_points", "col_score"];
  for (const k of cols) {
    const th = document.createElement("th");
    th.textContent = t(k);
    th.className = k.replace("_", "-");
    head.append(th);
  }
  const tb = table.createTBody();
  for (const r of v.results) {
    const row = tb.insertRow();
    const cells = [String(r.number), contractText(r.contract), seatName(r.dealer), `${r.tricks.NS}–${r.tricks.EW}`, `${r.points.NS}–${r.points.EW}`, `${r.score.NS}–${r.score.EW}`];
    cells.forEach((c, i) => {
      const td = row.insertCell();
      td.textContent = c;
      td.className = cols[i].replace("_", "-");
    });
    const extras = [];
    if (r.extra && r.extra.honours) extras.push(`${t("honours")} ${pair(r.extra.honours).join("–")}`);
    if (r.extra && nonzero(r.extra.penalties)) extras.push(`${t("penalties")} ${pair(r.extra.penalties).join("–")}`);
    if (r.extra && Array.isArray(r.extra.revokes) && r.extra.revokes.length) {
      extras.push(t("revokes_by", { seats: r.extra.revokes.map((x) => seatName(x.seat)).join(", ") }));
    }
    if (extras.length) {
      // on a line of their own under the points, so that the Score column stays in view
      const extra = document.createElement("span");
      extra.className = "extra";
      extra.textContent = extras.join(", ");
      row.cells[4].append(extra);
    }
  }
  const cap = table.createCaption();
  cap.textContent = `${t("side_ns")} – ${t("side_ew")}`;
  body.append(table);
}

async function openGames() {
  openDialog("#dlg-games");
  const body = $("#games-body");
  body.replaceChildren();
  $("#games-status").textContent = "";
  const games = await (await fetch("/api/games?finished=1")).json();
  if (!games.length) {
    body.textContent = t("no_games");
    return;
  }
  const ul = document.createElement("ul");
  ul.className = "games";
  for (const g of games) {
    const li = document.createElement("li");
    const when = new Date(g.updated * 1000).toLocaleString(language());
    const score = g.score ? `${g.score.NS}–${g.score.EW}` : "";
    const name = has(`variant_${g.variant}`) ? t(`variant_${g.variant}`) : g.variant;
    li.append(`${name} · ${when} · ${score} · `);
    const a = document.createElement("a");
    a.href = `/api/games/${g.id}/record`;
    a.download = `whistkit-${g.id}.json`;
    a.textContent = t("download");
    a.dataset.record = g.id;
    li.append(a, " · ");
    const b = document.createElement("button");
    b.type = "button";
    b.className = "link";
    b.textContent = t("btn_review");
    b.dataset.review = g.id;
    b.addEventListener("click", () => openReview(g.id));
    li.append(b);
    ul.append(li);
  }
  body.append(ul);
}

// -- the double-dummy review of a finished game ------------------------------------------

function shortCard(code) {
  return (code[0] === "T" ? "10" : code[0]) + SUIT_SYMBOL[code[1]];
}

async function openReview(id) {
  const status = $("#games-status");
  const buttons = document.querySelectorAll("#games-body [data-review]");
  for (const b of buttons) b.disabled = true;
  status.textContent = t("review_working");
  let data = null;
  try {
    const r = await fetch(`/api/games/${id}/analysis`);
    const body = await r.json();
    if (!r.ok) throw new Error(body.error || r.statusText);
    data = body;
  } catch (err) {
    status.textContent = t("review_failed", { error: err.message });
    return;
  } finally {
    for (const b of buttons) b.disabled = false;
  }
  status.textContent = "";
  if (!$("#dlg-games").open) return; // closed while the review was worked out
  renderReview(data);
  openDialog("#dlg-review");
}

function renderReview(data) {
  const body = $("#review-body");
  body.replaceChildren();
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  const side = t("side_ns").replace("–", "\u2060–\u2060"); // "N–S" is not broken
  const cols = [
    ["col-hand", t("col_hand")],
    ["col-contract", t("col_contract")],
    ["col-par", t("col_par", { side })],
    ["col-tricks", t("col_tricks_side", { side })],
    ["col-given", t("col_given")],
  ];
  for (const [cls, text] of cols) {
    const th = document.createElement("th");
    th.className = cls;
    th.textContent = text;
    head.append(th);
  }
  const tbody = table.createTBody();
  for (const h of data.hands) {
    const row = tbody.insertRow();
    row.dataset.hand = String(h.number);
    const given = document.createElement("ul");
    given.className = "given";
    for (const c of h.cards) {
      if (c.seat !== app.seat || !c.loss) continue;
      const li = document.createElement("li");
      li.dataset.card = c.card;
      const best = c.best.slice(0, 3).map(shortCard).join(" ") + (c.best.length > 3 ? " …" : "");
      li.textContent = t("review_mistake", { trick: c.trick, card: shortCard(c.card), loss: c.loss, best });
      li.title = cardLabel(c.card);
      given.append(li);
    }
    if (!given.children.length) given.textContent = t("review_none");
    const cells = [
      String(h.number),
      contractText({
        code: h.contract,
        trump: SUIT_SYMBOL[h.contract] ? h.contract : null,
        aces_low: h.aces_low,
      }),
      h.par_ns === null ? "?" : String(h.par_ns),
      h.tricks_ns === null ? "?" : String(h.tricks_ns),
      given,
    ];
    cells.forEach((v, i) => {
      const td = row.insertCell();
      td.className = cols[i][0];
      td.append(v);
    });
  }
  body.append(table);
  const seats = data.seats;
  const lost = (a, b) => (seats[a]?.tricks_lost ?? 0) + (seats[b]?.tricks_lost ?? 0);
  const summary = document.createElement("p");
  summary.className = "summary";
  summary.dataset.summary = "";
  summary.textContent = t("review_summary", {
    ns_side: t("side_ns"), ns: lost("N", "S"), ew_side: t("side_ew"), ew: lost("E", "W"),
  });
  body.append(summary);
  const unsolved = Object.values(seats).reduce((n, s) => n + s.unsolved, 0);
  if (unsolved) {
    const p = document.createElement("p");
    p.className = "note";
    p.textContent = t("review_unsolved", { n: unsolved });
    body.append(p);
  }
}

async function loadMeta() {
  if (!app.meta) app.meta = await (await fetch("/api/meta")).json();
  return app.meta;
}

function optionLabel(key, value) {
  if (typeof value === "boolean") return t(value ? "yes" : "no");
  const k = `opt_${key}_${value}`;
  return has(k) ? t(k) : String(value);
}

function fillOptions() {
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
function showLawsOptions() {
  const mode = $('#new-options [data-option="play_mode"]');
  const laws = Boolean(mode) && mode.value === "laws";
  for (const el of document.querySelectorAll('#new-options [data-laws="true"]')) el.hidden = !laws;
}

async function openNew() {
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
  $("#new-error").textContent = "";
  openDialog("#dlg-new");
  $("#new-start").focus();
}

async function startNew() {
  const options = {};
  for (const el of document.querySelectorAll("#new-options [data-option]")) {
    const kind = el.dataset.kind;
    options[el.dataset.option] = kind === "bool" ? el.checked : kind === "int" ? Number(el.value) : el.value;
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

function startGame(id, seat, token) {
  app.game = id;
  app.seat = seat;
  app.token = token;
  localStorage.setItem(TOKEN_KEY, token);
  app.version = 0;
  app.view = null;
  app.liveTrick = [];
  app.doneTrick = null;
  app.selected = 0;
  app.message = null;
  app.picking = null;
  app.hint = null;
  app.hintAsked = -1;
  localStorage.setItem(GAME_KEY, id);
  if (app.ws) { const ws = app.ws; app.ws = null; ws.close(); }
  connect();
}

// -- keys --------------------------------------------------------------------------------

function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const openDlg = document.querySelector("dialog[open]");
  if (!openDlg && e.key === "Escape" && app.picking) { app.picking = null; render(); return; }
  if (openDlg) {
    // in a dialog only its own keys work; the letters toggle their dialogs shut
    const k = e.key.toLowerCase();
    const own = { "dlg-last": "l", "dlg-sheet": "s", "dlg-help": "?" }[openDlg.id];
    if (own && (k === own || e.key === own)) { e.preventDefault(); openDlg.close(); }
    else if (openDlg.id === "dlg-result" && k === "n") { e.preventDefault(); openNew(); }
    return;
  }
  const target = e.target;
  if (target instanceof HTMLSelectElement || target instanceof HTMLInputElement) return;
  const key = e.key;
  const upper = key.length === 1 ? key.toUpperCase() : key;
  const now = Date.now();
  if (app.typed && now - app.typedAt > 3000) app.typed = "";
  if (app.typed && "SHDC".includes(upper) && upper.length === 1) {
    e.preventDefault();
    const code = app.typed + upper;
    app.typed = "";
    selectCode(code);
    playCard(code);
    return;
  }
  if (key === "ArrowLeft") { e.preventDefault(); select(-1); return; }
  if (key === "ArrowRight") { e.preventDefault(); select(1); return; }
  if (key === "Enter" || key === " ") {
    if (target instanceof HTMLButtonElement && !target.classList.contains("card")) return;
    e.preventDefault();
    const v = app.view;
    if (v && v.hand[app.selected]) playCard(v.hand[app.selected]);
    return;
  }
  if (key === "?") { e.preventDefault(); openDialog("#dlg-help"); return; }
  if (upper === "N") { e.preventDefault(); openNew(); return; }
  if (upper === "L") { e.preventDefault(); renderLast(); openDialog("#dlg-last"); return; }
  if (upper === "S") { e.preventDefault(); renderSheet(); openDialog("#dlg-sheet"); return; }
  if (upper === "H") { e.preventDefault(); askHint(); return; }
  if (upper === "1") { app.typed = "1"; app.typedAt = now; return; }
  if (upper === "0" && app.typed === "1") { app.typed = "T"; app.typedAt = now; return; }
  if (upper.length === 1 && RANKS.includes(upper)) { e.preventDefault(); app.typed = upper; app.typedAt = now; }
}

function selectCode(code) {
  const v = app.view;
  if (!v) return;
  const i = v.hand.indexOf(code);
  if (i >= 0) { app.selected = i; select(0); }
}

// -- start -------------------------------------------------------------------------------

async function main() {
  const lang = await setLanguage(pickLanguage());
  const sel = $("#lang");
  for (const l of LANGUAGES) {
    const o = document.createElement("option");
    o.value = l;
    o.textContent = languageName(l);
    sel.append(o);
  }
  sel.value = lang;
  sel.addEventListener("change", async () => {
    await setLanguage(sel.value, true);
    render();
    if ($("#dlg-new").open) openNew();
  });
  $("#btn-new").addEventListener("click", openNew);
  $("#btn-last").addEventListener("click", () => { renderLast(); openDialog("#dlg-last"); });
  $("#btn-sheet").addEventListener("click", () => { renderSheet(); openDialog("#dlg-sheet"); });
  $("#btn-hint").addEventListener("click", askHint);
  $("#btn-help").addEventListener("click", () => openDialog("#dlg-help"));
  $("#btn-games").addEventListener("click", openGames);
  $("#result-new").addEventListener("click", openNew);
  $("#banner-new").addEventListener("click", openNew);
  $("#result-sheet").addEventListener("click", () => { renderSheet(); openDialog("#dlg-sheet"); });
  $("#new-variant").addEventListener("change", fillOptions);
  $("#new-cancel").addEventListener("click", () => $("#dlg-new").close());
  $("#new-form").addEventListener("submit", (e) => { e.preventDefault(); startNew(); });
  // an error names what was wrong with the last try; it goes once the dialog is changed
  $("#new-form").addEventListener("input", () => { $("#new-error").textContent = ""; });
  for (const b of document.querySelectorAll("dialog .close")) b.addEventListener("click", () => b.closest("dialog").close());
  document.addEventListener("keydown", onKey);
  // Space activates a button on key-up: the card was already played on key-down
  document.addEventListener("keyup", (e) => {
    if (e.key === " " && e.target instanceof HTMLButtonElement && e.target.classList.contains("card")) e.preventDefault();
  });
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("game") && hash.get("token")) {
    app.game = hash.get("game");
    app.token = hash.get("token");
    localStorage.setItem(GAME_KEY, app.game);
    localStorage.setItem(TOKEN_KEY, app.token);
  }
  if (app.game) {
    showMessage(t("connecting"));
    connect();
  } else {
    await openNew(); // ready means ready to use: the new-game dialog is already open
  }
  document.body.dataset.ready = "true";
}

main();
