// The table's chat: short messages and one-click phrases. Every text from the server is
// put on the page with textContent, never as HTML.

import { t } from "./i18n.js";
import { send } from "./connection.js";
import { $, app, CHAT_LIMIT, seatName } from "./state.js";

export const PHRASES = ["hello", "well_played", "thanks_partner", "good_game", "sorry"];
const SHOWN = 100; // the messages kept on the page
let unread = 0;
let lastSent = "";

export function initChat() {
  $("#btn-chat").addEventListener("click", () => toggleChat());
  $("#chat-close").addEventListener("click", () => toggleChat(false));
  $("#chat-text").addEventListener("input", countChars);
  $("#chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("#chat-text").value.trim();
    if (!text) return;
    lastSent = text;
    $("#chat-text").value = "";
    countChars();
    $("#chat-error").textContent = "";
    send({ type: "chat", text });
  });
  renderPhrases();
  countChars();
}

// the phrases' buttons, in the page's language (again when it changes)
export function renderPhrases() {
  const box = $("#chat-phrases");
  box.replaceChildren();
  for (const p of PHRASES) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.phrase = p;
    b.textContent = t(`phrase_${p}`);
    b.addEventListener("click", () => {
      $("#chat-error").textContent = "";
      send({ type: "chat", phrase: p });
    });
    box.append(b);
  }
  $("#chat-text").placeholder = t("chat_placeholder");
  countChars();
  renderLog();
}

function countChars() {
  const n = [...$("#chat-text").value].length;
  const c = $("#chat-count");
  c.textContent = `${n}/${CHAT_LIMIT}`;
  c.dataset.over = String(n > CHAT_LIMIT);
}

export function toggleChat(open = $("#chat").hidden) {
  $("#chat").hidden = !open;
  $("#btn-chat").setAttribute("aria-expanded", String(open));
  document.body.dataset.chat = String(open);
  if (open) {
    unread = 0;
    showUnread();
    const log = $("#chat-log");
    log.scrollTop = log.scrollHeight;
    $("#chat-text").focus();
  }
}

function showUnread() {
  const u = $("#chat-unread");
  u.hidden = unread === 0;
  u.textContent = String(unread);
}

export function resetChat() {
  app.chat = [];
  unread = 0;
  showUnread();
  $("#chat-log").replaceChildren();
  $("#chat-error").textContent = "";
}

export function addChat(msg) {
  app.chat.push(msg);
  if (app.chat.length > SHOWN) app.chat.splice(0, app.chat.length - SHOWN);
  renderLog();
  if ($("#chat").hidden) {
    unread += 1;
    showUnread();
  }
}

function chatLine(msg) {
  const li = document.createElement("p");
  li.className = "chat-line";
  li.dataset.seat = typeof msg.seat === "string" ? msg.seat : "";
  const who = document.createElement("b");
  const seat = typeof msg.seat === "string" && ["N", "E", "S", "W"].includes(msg.seat) ? msg.seat : null;
  who.textContent = typeof msg.name === "string" && msg.name ? msg.name : seat ? seatName(seat) : t("watcher");
  const text = document.createElement("span");
  text.className = "chat-text";
  if (typeof msg.phrase === "string") {
    li.dataset.phrase = msg.phrase;
    text.textContent = t(`phrase_${msg.phrase}`);
  } else text.textContent = typeof msg.text === "string" ? msg.text : "";
  li.append(who, ": ", text);
  if (typeof msg.at === "number") {
    const when = new Date(msg.at * 1000);
    li.title = when.toLocaleTimeString();
  }
  return li;
}

function renderLog() {
  const log = $("#chat-log");
  if (!log) return;
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
  log.replaceChildren(...app.chat.map(chatLine));
  if (atEnd) log.scrollTop = log.scrollHeight;
}

// the server refused a message: why, and the text is back in the box to shorten or resend
export function chatRefused(msg) {
  const err = $("#chat-error");
  err.dataset.refused = msg.code;
  const reason = msg.code === "chat_too_long" ? t("chat_too_long", { n: CHAT_LIMIT })
    : msg.code === "chat_rate" ? t("chat_rate") : t("error", { message: msg.message });
  err.textContent = reason;
  if (lastSent && !$("#chat-text").value) {
    $("#chat-text").value = lastSent;
    countChars();
  }
  if ($("#chat").hidden) toggleChat(true);
}
