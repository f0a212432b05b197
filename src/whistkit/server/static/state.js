// The page's state and the small helpers every part uses: seats on the screen, names,
// values as text, card images.

import { SUIT_SYMBOL, cardLabel, has, t } from "./i18n.js";

export const GAME_KEY = "whistkit.game";
export const TOKEN_KEY = "whistkit.token";
export const SEATS = ["N", "E", "S", "W"];
export const RANKS = "23456789TJQKA";
export const $ = (sel) => document.querySelector(sel);

export const app = {
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
  if (seat === app.seat) return t("you");
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

export function contractText(contract) {
  if (!contract) return t("contract_bidding");
  const sym = contract.trump ? SUIT_SYMBOL[contract.trump] + " " : "";
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
