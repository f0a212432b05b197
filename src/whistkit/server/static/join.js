// The open join link of an online evening (#34): ?join-evening=ID. A person types a name (and,
// with groups, may choose one); the server answers with their own player's link
// (?evening=ID#t=TOKEN), which this browser keeps: opening the join link again goes back
// to it instead of joining twice.

import { t } from "./i18n.js";
import { $ } from "./state.js";

const join = { id: null, room: null };
const WORDS = { name_taken: "join_name_taken", closed: "join_closed", no_hand_left: "join_over" };

export function joinLink() {
  const id = new URLSearchParams(location.search).get("join-evening");
  if (!id || !/^[0-9a-zA-Z]{1,32}$/.test(id)) return null;
  return { id };
}

const kept = (id) => `whistkit.joined.${id}`;

export async function startJoin(link) {
  join.id = link.id;
  const mine = localStorage.getItem(kept(link.id));
  if (mine) {
    location.replace(mine); // joined before in this browser: their own link
    return;
  }
  document.body.dataset.page = "room";
  $("#evening-join").hidden = false;
  $("#ej-form").addEventListener("submit", (e) => { e.preventDefault(); send(); });
  try {
    const r = await fetch(`/api/online-evenings/${encodeURIComponent(link.id)}/room`);
    const body = await r.json().catch(() => ({}));
    if (!r.ok) throw new Error(body.error || r.statusText);
    join.room = body;
  } catch (err) {
    $("#ej-error").textContent = t("error", { message: err.message });
    $("#ej-submit").disabled = true;
    return;
  }
  rerenderJoin();
}

export function rerenderJoin() {
  const s = join.room;
  if (!s) return;
  $("#ej-title").textContent = s.title;
  document.title = `${s.title} · ${t("title")}`;
  const group = $("#ej-group");
  const keep = group.value;
  group.replaceChildren(new Option(t("join_group_any"), ""), new Option("A", "A"), new Option("B", "B"));
  group.value = keep;
  $("#ej-group-line").hidden = !s.grouped;
  // gathering: they play from the first hand, once the host starts
  const note = $("#ej-note");
  note.dataset.t = s.gathering ? "join_note_gather" : "join_note";
  note.textContent = t(note.dataset.t);
  if (!s.joinable) {
    $("#ej-error").textContent = t(s.open_join ? "join_over" : "join_closed");
    $("#ej-submit").disabled = true;
  }
}

async function send() {
  const error = $("#ej-error");
  error.textContent = "";
  const button = $("#ej-submit");
  button.disabled = true;
  try {
    const body = { name: $("#ej-name").value, group: join.room && join.room.grouped ? $("#ej-group").value || null : null };
    const r = await fetch(`/api/online-evenings/${encodeURIComponent(join.id)}/join`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const data = await r.json().catch(() => ({}));
    if (!r.ok) {
      const own = WORDS[data.code]; // the refusals a person meets, in their language
      if (own) {
        error.textContent = t(own, { name: body.name.trim() });
        button.disabled = data.code === "closed" || data.code === "no_hand_left";
        return;
      }
      throw new Error(data.error || r.statusText);
    }
    localStorage.setItem(kept(join.id), data.url);
    location.assign(data.url); // the player's page: it keeps the link's token
  } catch (err) {
    error.textContent = t("error", { message: err.message });
    button.disabled = false;
  }
}
