// The page's state and the small helpers every part uses: seats on the screen, names,
// values as text, card images.

import { SUIT_SYMBOL, cardLabel, has, t } from "./i18n.js";

export const GAME_KEY = "whistkit.game";
export const TOKEN_KEY = "whistkit.token";
export const SEATS = ["N", "E", "S", "W"];
export const RANKS = "23456789TJQKA";
export const $ = (sel) => document.querySelector(sel);

// Make ``nodes`` the children of ``parent`` with as few DOM changes as possible: a child
// already in place stays (no style, layout or paint work for it), the others are moved in,
// and the children not among ``nodes`` leave. Every event re-renders the table, so this
// is what keeps a card that did not change from being drawn again.
export function placeChildren(parent, nodes) {
  const keep = new Set(nodes);
  for (const c of [...parent.childNodes]) if (!keep.has(c)) c.remove();
  let at = parent.firstChild;
  for (const n of nodes) {
    if (n === at) at = at.nextSibling;
    else parent.insertBefore(n, at);
  }
}

// ``nodes`` as the children of ``parent``, keeping each old child that equals its new
// counterpart at the same place; a part with a button is always the new one (equality
// does not see a button's handler)
export function patchChildren(parent, nodes) {
  const old = parent.childNodes;
  const same = (o, n) => o && o.isEqualNode(n) && !(n.matches && n.matches("button, :has(button)"));
  placeChildren(parent, nodes.map((n, i) => (same(old[i], n) ? old[i] : n)));
}

// set the attributes named in ``attrs`` (null: absent) only where they differ
export function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null) {
      if (el.hasAttribute(k)) el.removeAttribute(k);
    } else if (el.getAttribute(k) !== v) el.setAttribute(k, v);
  }
}

export const app = {
  ws: null,
  game: localStorage.getItem(GAME_KEY),
  token: localStorage.getItem(TOKEN_KEY), // the secret that opens our seat
  seat: "S",
  version: 0,
  view: null,
  meta: null,
  selectedCard: null, // the card the keyboard's selection rests on
  hintSelected: -1, // the hint (its version) whose card was selected
  liveTrick: [], // cards of the trick in progress, from the events
  doneTrick: null, // the last completed trick, shown until the next card is played
  typed: "", // a rank typed, waiting for its suit
  typedAt: 0,
  message: null, // a refusal or error shown in the status line
  notice: null, // what just happened (a revoke corrected), before the status until the next card
  retry: 0,
  resultShown: null, // the game whose result dialog has been shown
  handEnd: null, // the last hand's result, in its panel until the next card or a click
  armed: null, // laws mode: the revoking card clicked once (a second click plays it)
  autoPlayed: -1, // the version at which our only legal card was played for us
  trickSerial: 0, // counts finished tricks, so that a late gather is dropped
  gatherTo: null, // where the finished trick is being gathered ("left", ...)
  joined: false, // the socket's state has come: events from now on are live
  release: null, // resolves the wait at the end of a hand (the panel dismissed)
  picking: null, // laws mode: the kind of action whose card is being chosen ("Correct")
  hint: null, // the server's hint for this position: { v, action }, until the position changes
  hintAsked: -1, // the version a hint was asked for (one request per position)
  // a table shared with friends (#22)
  shared: false, // a table of people: names on the seats, chat, invites
  role: "play", // "play" (a seat) or "watch" (a watcher: no hand)
  host: false, // this page created the table (S): it may start, end and change seats
  seats: null, // the server's "seats" message: {N: {kind, name, connected, standin, level}}
  started: true, // a shared table waits for its people until started
  ended: false, // the host ended the shared table
  timeout: 0, // the table's time to play, in seconds (0: none)
  chat: [], // the table's chat, oldest first: {seat, name, text | phrase, at}
  joining: false, // an invite's name form is up: no game yet
  replaced: false, // this seat was taken over on another page: no reconnecting
  shownHands: null, // a watcher: the last hand's hands as dealt {number, hands}, if shown
  // an online evening (#34): its id and the name it knows this player by
  evening: null,
  eveningName: null,
};

export const NAME_KEY = "whistkit.name";
export const CHAT_LIMIT = 200;

const GAMES_KEY = "whistkit.games";

// the games this browser takes part in, so that each can be reopened from "Games":
// {id: token} for a solo game (the seat is S), or {id: {token, seat, role, shared, host,
// variant, invites, watch, at}} for a shared table
export function knownGames() {
  try {
    const games = JSON.parse(localStorage.getItem(GAMES_KEY) || "{}");
    return games && typeof games === "object" ? games : {};
  } catch {
    return {};
  }
}

export function rememberGame(id, token) {
  const games = knownGames();
  const had = gameEntry(id);
  games[id] = had && had.shared ? { ...had, token } : token;
  localStorage.setItem(GAMES_KEY, JSON.stringify(games));
}

// one game's entry in the same shape for both kinds: {token, seat, role, shared, ...}
export function gameEntry(id) {
  const e = knownGames()[id];
  if (typeof e === "string") return { token: e, seat: "S", role: "play", shared: false };
  if (!e || typeof e !== "object" || typeof e.token !== "string") return null;
  return {
    ...e,
    seat: ["N", "E", "S", "W"].includes(e.seat) ? e.seat : "S",
    role: e.role === "watch" ? "watch" : "play",
    shared: true,
  };
}

// a shared table remembered with what is needed to reopen it (fields are merged)
export function rememberTable(id, fields) {
  const games = knownGames();
  const had = gameEntry(id);
  games[id] = { ...(had && had.shared ? had : {}), ...fields, shared: true, at: Date.now() };
  localStorage.setItem(GAMES_KEY, JSON.stringify(games));
}

const EVENINGS_KEY = "whistkit.evenings";
const EVENINGS_MAX = 50; // the newest kept

// the online evenings this browser created (the host's link: {role: "host", key}) or was
// invited to (a player's link: {role: "player", token, name}), each with its title and
// when it was last opened (at), so that "Games" lists them; keyed "host:ID" or
// "player:ID:TOKEN" (one browser may hold the host's link and a player's)
export function knownEvenings() {
  try {
    const all = JSON.parse(localStorage.getItem(EVENINGS_KEY) || "{}");
    return all && typeof all === "object" && !Array.isArray(all) ? all : {};
  } catch {
    return {};
  }
}

export function rememberEvening(id, fields) {
  const secret = fields.role === "host" ? fields.key : fields.token;
  if (typeof secret !== "string" || !secret) return;
  const all = knownEvenings();
  const key = fields.role === "host" ? `host:${id}` : `player:${id}:${secret}`;
  all[key] = { ...(all[key] || {}), ...fields, id, at: Date.now() };
  const keys = Object.keys(all).sort((a, b) => (all[b].at || 0) - (all[a].at || 0));
  for (const old of keys.slice(EVENINGS_MAX)) delete all[old];
  localStorage.setItem(EVENINGS_KEY, JSON.stringify(all));
}

// a player's link of an evening that no longer works (the host removed them)
export function forgetEvening(id, token) {
  const all = knownEvenings();
  delete all[`player:${id}:${token}`];
  localStorage.setItem(EVENINGS_KEY, JSON.stringify(all));
}

export function forgetGame(id) {
  const games = knownGames();
  delete games[id];
  localStorage.setItem(GAMES_KEY, JSON.stringify(games));
}

// a suit symbol in its colour: <span class="suit-H">♥</span>
export function suitMark(suit) {
  const s = document.createElement("span");
  s.className = `suit-${suit}`;
  s.textContent = SUIT_SYMBOL[suit];
  return s;
}

// text with its suit symbols coloured: a fragment of text nodes and suit spans
export function withSuits(text) {
  const frag = document.createDocumentFragment();
  let rest = "";
  for (const ch of text) {
    const suit = Object.keys(SUIT_SYMBOL).find((k) => SUIT_SYMBOL[k] === ch);
    if (!suit) { rest += ch; continue; }
    if (rest) frag.append(rest);
    rest = "";
    frag.append(suitMark(suit));
  }
  if (rest) frag.append(rest);
  return frag;
}

const RED = { S: false, H: true, D: true, C: false };

// your hand in the order a player holds it: the trump suit first, then the suits in
// alternating colours as far as the suits held allow, each from the ace down
export function sortHand(cards, trump) {
  const held = [...new Set(cards.map((c) => c[1]))];
  const base = "SHCD";
  let best = null;
  for (const order of permutations(held)) {
    if (trump && held.includes(trump) && order[0] !== trump) continue;
    let clash = 0;
    for (let i = 1; i < order.length; i++) if (RED[order[i]] === RED[order[i - 1]]) clash++;
    const key = [clash, ...order.map((s) => base.indexOf(s))];
    if (!best || compareKeys(key, best.key) < 0) best = { key, order };
  }
  const order = best ? best.order : [];
  return cards.slice().sort((a, b) => order.indexOf(a[1]) - order.indexOf(b[1]) || RANKS.indexOf(b[0]) - RANKS.indexOf(a[0]));
}

function compareKeys(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

function permutations(items) {
  if (items.length <= 1) return [items];
  const out = [];
  items.forEach((x, i) => {
    for (const rest of permutations(items.filter((_, j) => j !== i))) out.push([x, ...rest]);
  });
  return out;
}

// public facts drawn as a card beside a seat: the turned-up trump beside the dealer,
// your own bottom card beside you (maps of seats to cards are drawn beside those seats)
export const CARD_BESIDE = { turned: "dealer", your_bottom_card: "me" };
// public facts the page shows in its own way, or not at all
export const PUBLIC_HIDDEN = new Set(["trick_leaders", "waiting_for", "games"]);

export function publicKey(key) {
  return key.replace(/ /g, "_");
}

export function publicName(key) {
  return has(`public_${key}`) ? t(`public_${key}`) : key;
}

// honours and penalties come as [NS, EW] or {NS, EW}
export function pair(value) {
  if (Array.isArray(value)) return [value[0] ?? 0, value[1] ?? 0];
  return [value.NS ?? 0, value.EW ?? 0];
}

export function nonzero(value) {
  return Boolean(value) && pair(value).some((x) => x);
}

export function posOf(seat) {
  // you at the bottom, your partner at the top, clockwise to your left
  const d = (SEATS.indexOf(seat) - SEATS.indexOf(app.seat) + 4) % 4;
  return ["bottom", "left", "top", "right"][d];
}

export function seatName(seat) {
  if (seat === app.seat && app.role !== "watch") return t("you");
  const p = app.seats && app.seats[seat];
  if (p && p.kind === "person" && p.name) return p.name;
  return t(`seat_${seat}`);
}

// "West won the trick", or in the second person for you (the verb agrees in most languages)
export function trickWonText(seat) {
  return seat === app.seat ? t("you_won_trick") : t("trick_won_by", { seat: seatName(seat) });
}

export function sideOf(seat) {
  return "NS".includes(seat) ? "NS" : "EW";
}

export function partnerOf(seat) {
  return SEATS[(SEATS.indexOf(seat) + 2) % 4];
}

export function isCard(value) {
  return typeof value === "string" && /^[2-9TJQKA][SHDC]$/.test(value);
}

export function isSeatCards(value) {
  return value && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0
    && Object.entries(value).every(([k, c]) => SEATS.includes(k)
      && (isCard(c) || c === null || (Array.isArray(c) && c.every(isCard))));
}

export function formatValue(value) {
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

export function shortCard(code) {
  return (code[0] === "T" ? "10" : code[0]) + SUIT_SYMBOL[code[1]];
}

export function contractText(contract, symbol = true) {
  if (!contract) return t("contract_bidding");
  const sym = symbol && contract.trump ? SUIT_SYMBOL[contract.trump] + " " : "";
  let text = sym + t(`contract_${contract.code}`);
  if (contract.aces_low) text += ` (${t("aces_low")})`;
  return text;
}

export function cardImg(code) {
  const img = document.createElement("img");
  img.src = `/static/cards/${code}.svg`;
  img.alt = "";
  img.draggable = false;
  return img;
}

export function cardFace(code) {
  const span = document.createElement("span");
  span.className = "card face";
  span.dataset.card = code;
  span.setAttribute("role", "img");
  span.setAttribute("aria-label", cardLabel(code));
  span.append(cardImg(code));
  return span;
}

export function badge(text, cls) {
  const b = document.createElement("span");
  b.className = `badge ${cls}`;
  b.textContent = text;
  return b;
}
