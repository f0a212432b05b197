// "How to play": a short guide to each variant and to the laws, in the page's language,
// from /static/help/<lang>.json (English where a language has none). Text nodes only.

import { has, language, t } from "./i18n.js";
import { closeDialogs } from "./sheet.js";
import { $, app } from "./state.js";

export const HELP_TOPICS = ["felagsvist", "swedish", "english", "american", "laws"];
const cache = {};

async function helpFor(lang) {
  if (!(lang in cache)) {
    cache[lang] = fetch(`/static/help/${lang}.json`)
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null);
  }
  return cache[lang];
}

// the topic for a variant name and its options: classic whist is English or American
function topicOf(variant) {
  if (HELP_TOPICS.includes(variant)) return variant;
  const scoring = app.view && app.view.options && app.view.options.classic_scoring;
  return scoring === "american" ? "american" : variant === "classic" ? "english" : "felagsvist";
}

// open the guide at ``topic`` (the game's variant by default); ``over`` keeps the dialog
// it was opened from (the new-game dialog) open beneath it
export async function openRules(topic = null, over = false) {
  const dlg = $("#dlg-rules");
  const sel = $("#rules-variant");
  if (!sel.options.length || sel.dataset.lang !== language()) {
    sel.replaceChildren();
    for (const k of HELP_TOPICS) {
      const o = document.createElement("option");
      o.value = k;
      o.textContent = k === "laws" ? t("rules_laws") : has(`variant_${k}`) ? t(`variant_${k}`) : k;
      sel.append(o);
    }
    sel.dataset.lang = language();
    sel.onchange = () => renderRules(sel.value);
  }
  sel.value = topicOf(topic || (app.view && app.view.variant) || "felagsvist");
  if (!over) closeDialogs();
  if (!dlg.open) dlg.showModal();
  await renderRules(sel.value);
}

async function renderRules(topic) {
  const body = $("#rules-body");
  const help = (await helpFor(language())) || (await helpFor("en"));
  const entry = help && help[topic];
  body.replaceChildren();
  body.dataset.topic = topic;
  if (!entry || !Array.isArray(entry.sections)) {
    const p = document.createElement("p");
    p.textContent = t("rules_missing");
    body.append(p);
    return;
  }
  if (typeof entry.title === "string") {
    const h = document.createElement("h3");
    h.textContent = entry.title;
    body.append(h);
  }
  for (const section of entry.sections) {
    if (!section || typeof section !== "object") continue;
    const sec = document.createElement("section");
    if (typeof section.heading === "string") {
      const h = document.createElement("h4");
      h.textContent = section.heading;
      sec.append(h);
    }
    for (const para of Array.isArray(section.paragraphs) ? section.paragraphs : []) {
      if (typeof para !== "string") continue;
      const p = document.createElement("p");
      p.textContent = para;
      sec.append(p);
    }
    body.append(sec);
  }
}
