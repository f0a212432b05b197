// Strings in six languages: chosen from the browser's language, switchable, remembered.

export const LANGUAGES = ["en", "is", "sv", "it", "fr", "ru"];
const KEY = "whistkit.lang";

let strings = {};
let fallback = {};
let current = "en";

export function pickLanguage() {
  const saved = localStorage.getItem(KEY);
  if (saved && LANGUAGES.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = tag.toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
    if (base === "nb" || base === "nn" || base === "no" || base === "da") return "sv";
  }
  return "en";
}

async function fetchStrings(lang) {
  const r = await fetch(`/static/i18n/${lang}.json`);
  if (!r.ok) throw new Error(`no strings for ${lang}`);
  return r.json();
}

export async function setLanguage(lang, remember = false) {
  if (!LANGUAGES.includes(lang)) lang = "en";
  if (!fallback.title) fallback = await fetchStrings("en");
  strings = lang === "en" ? fallback : await fetchStrings(lang);
  current = lang;
  if (remember) localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  // a tooltip with the whole name (the toolbar shows a short one, or only an icon)
  for (const el of document.querySelectorAll("[data-t-title]")) el.title = t(el.dataset.tTitle);
  document.title = t("title");
  return lang;
}

export function language() {
  return current;
}

export function languageName(lang) {
  return { en: "English", is: "Íslenska", sv: "Svenska", it: "Italiano", fr: "Français", ru: "Русский" }[lang];
}

// t("turn_of", {seat: "West"}) -> "West to play"
export function t(key, params = {}) {
  let s = strings[key] ?? fallback[key] ?? key;
  for (const [k, v] of Object.entries(params)) s = s.replaceAll(`{${k}}`, String(v));
  return s;
}

export function has(key) {
  return key in strings || key in fallback;
}

function capitalise(s) {
  return s ? s[0].toLocaleUpperCase(current) + s.slice(1) : s;
}

// "QH" -> "Queen of hearts" in the page's language
export function cardLabel(code) {
  return capitalise(t("card_label", { rank: t(`rank_${code[0]}`), suit: t(`suit_of_${code[1]}`) }));
}

export const SUIT_SYMBOL = { S: "♠", H: "♥", D: "♦", C: "♣" };
