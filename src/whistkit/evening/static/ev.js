// What the evening's pages share: strings, requests, live updates, small DOM helpers.

export const LANGUAGES = ["en", "is", "sv", "it", "fr", "ru"];
const KEY = "whistkit.lang";
let strings = {};
let fallback = {};
let current = "en";

export function pickLanguage() {
  const asked = new URLSearchParams(location.search).get("lang");
  if (asked && LANGUAGES.includes(asked)) return asked;
  const saved = localStorage.getItem(KEY);
  if (saved && LANGUAGES.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = tag.toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

async function load(lang) {
  const r = await fetch(`/static/i18n/${lang}.json`);
  if (!r.ok) throw new Error(`no strings for ${lang}`);
  return r.json();
}

export async function setLanguage(lang, remember = false) {
  if (!LANGUAGES.includes(lang)) lang = "en";
  if (!fallback.lang_name) fallback = await load("en");
  strings = lang === "en" ? fallback : await load(lang);
  current = lang;
  if (remember) localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang;
  for (const e of document.querySelectorAll("[data-t]")) e.textContent = t(e.dataset.t);
  for (const e of document.querySelectorAll("[data-tp]")) e.placeholder = t(e.dataset.tp);
  return lang;
}

export function language() {
  return current;
}

// t("to_table", {name: "Anna", n: 5}) -> "Anna → table 5"
// A count takes the language's plural form: "{n|one:# table|other:# tables}" (the CLDR
// categories one, few, many, other; "#" is the number; other when a form is missing).
export function t(key, params = {}) {
  let s = strings[key] ?? fallback[key] ?? key;
  s = s.replace(/\{(\w+)\|([^{}]*)\}/g, (_, k, body) => {
    const forms = new Map(body.split("|").map((f) => [f.slice(0, f.indexOf(":")), f.slice(f.indexOf(":") + 1)]));
    const form = forms.get(new Intl.PluralRules(current).select(Number(params[k]))) ?? forms.get("other") ?? "";
    return form.replaceAll("#", String(params[k]));
  });
  for (const [k, v] of Object.entries(params)) s = s.replaceAll(`{${k}}`, String(v));
  return s;
}

// A <select> of the languages that re-renders the page through onChange.
export function languageMenu(select, onChange) {
  select.replaceChildren(
    ...LANGUAGES.map((l) => el("option", { value: l }, { en: "English", is: "Íslenska", sv: "Svenska", it: "Italiano", fr: "Français", ru: "Русский" }[l])),
  );
  select.value = current;
  select.addEventListener("change", async () => {
    await setLanguage(select.value, true);
    onChange();
  });
}

const SYMBOL = { H: "♥", S: "♠", D: "♦", C: "♣" };

// "♥ Hearts", "Grand", "Nóló"
export function contractName(code) {
  const name = t(`contract_${code}`);
  return SYMBOL[code] ? `${SYMBOL[code]} ${name}` : name;
}

export function contractShort(code) {
  return SYMBOL[code] || t(`contract_${code}`);
}

// el("p", {class: "x", onclick: f}, "text", child)
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else if (k === "dataset") Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// parent's children become kids (nested lists flattened; null, undefined, false left out)
export function fill(parent, ...kids) {
  parent.replaceChildren(...kids.flat(Infinity).filter((k) => k !== null && k !== undefined && k !== false));
}

export class ApiError extends Error {
  // status 0: the server was not reached; code: the server's kind of refusal (or null)
  constructor(message, status = 0, code = null) {
    super(message);
    this.status = status;
    this.code = code;
  }

  get offline() {
    return this.status === 0;
  }
}

// What went wrong, in the page's language: the string of the server's error code where
// there is one, else "Not sent: " and the server's own words.
export function explain(e) {
  if (!(e instanceof ApiError)) return t("not_sent", { text: e.message || String(e) });
  if (e.offline) return t("offline");
  if (e.code && t(`err_${e.code}`) !== `err_${e.code}`) return t(`err_${e.code}`);
  return t("not_sent", { text: e.message });
}

// A JSON request; a refusal throws ApiError with the server's message and code.
export async function api(method, url, body) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let r;
  try {
    r = await fetch(url, init);
  } catch {
    throw new ApiError(t("offline"), 0);
  }
  let data = null;
  try {
    data = await r.json();
  } catch {
    data = null;
  }
  if (!r.ok) throw new ApiError((data && data.error) || `${r.status} ${r.statusText}`, r.status, data && data.code);
  return data;
}

// A live update's trouble: offline, or the server's refusal in the page's language.
function explainTrouble(e) {
  if (e instanceof ApiError && !e.offline && e.code && t(`err_${e.code}`) !== `err_${e.code}`) return t(`err_${e.code}`);
  return e instanceof ApiError && e.offline ? t("offline") : e.message || String(e);
}

// Live updates by long polling: each answer comes at once when the evening changed since
// the version we have, else when it changes (or after the server's wait). Bounded: one
// request at a time per page, and a growing pause after failures.
// ``key`` names the field that identifies what the page has (a table's page waits for its
// own view's etag, not for the evening's version).
export function watch(url, onData, onTrouble = () => {}, key = "version") {
  let version = 0;
  let stopped = false;
  let failures = 0;
  async function loop() {
    while (!stopped) {
      try {
        const sep = url.includes("?") ? "&" : "?";
        let r;
        try {
          r = await fetch(`${url}${sep}since=${version}`, { credentials: "same-origin" });
        } catch {
          throw new ApiError(t("offline"), 0);
        }
        const data = await r.json().catch(() => null);
        if (!r.ok) throw new ApiError((data && data.error) || String(r.status), r.status, data && data.code);
        failures = 0;
        onTrouble(null);
        if (data[key] !== version) {
          version = data[key];
          onData(data);
        }
      } catch (e) {
        failures += 1;
        onTrouble(explainTrouble(e));
        // not the host's page here, or no such evening or table: waiting will not mend it
        if (e instanceof ApiError && (e.status === 403 || e.status === 404)) {
          stopped = true;
          document.body.dataset.stopped = e.code || String(e.status);
          return;
        }
        await new Promise((ok) => setTimeout(ok, Math.min(5000, 500 * failures)));
      }
    }
  }
  loop();
  return {
    stop() {
      stopped = true;
    },
    // fetch again now (after our own change, the answer is already on its way)
    get version() {
      return version;
    },
  };
}

export function byId(players) {
  return new Map(players.map((p) => [p.id, p]));
}

// The host name of a link when only this computer can open it (127.0.0.1, localhost, ::1).
export function localOnly(link) {
  let host;
  try {
    host = new URL(link).hostname;
  } catch {
    return null;
  }
  return /^(127\.|localhost$|\[::1\]$|0\.0\.0\.0$)/.test(host) ? host : null;
}
