// The projector: the hand in progress, the tables still to report, the moves after each
// hand, the leaderboard by group (hidden until the end when the host says so), prizes.
import { contractName, el, pickLanguage, setLanguage, t, watch, fill } from "./ev.js";

const main = document.getElementById("main");
const errorBox = document.getElementById("error");
const evening = location.pathname.split("/")[2];
const SHOWN = 12; // leaderboard rows per group

function fmt(x) {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}

function render(s) {
  document.title = `${s.title} · whistkit`;
  const cur = s.current;
  const head = el("header", { class: "p-head" },
    el("h1", {}, s.title),
    el("p", { id: "p-hand", "data-hand": cur ? String(cur.number) : "" },
      s.status === "finished" ? t("final_results")
        : cur ? `${t("hand_of", { n: cur.number, total: s.hands })} · ${contractName(cur.contract)}`
          : s.status === "setup" ? t("not_started") : t("all_reported")),
    s.status === "paused" ? el("p", { class: "banner" }, t("paused_banner")) : null);
  const waiting = cur && s.status !== "finished"
    ? el("section", { id: "p-waiting", "data-count": String(cur.waiting.length) },
        el("h2", {}, t("still_to_report")),
        el("p", { class: "nums" }, cur.waiting.length ? cur.waiting.join("  ") : "✓"))
    : null;
  const moves = s.moves && s.moves.moves.length && s.status !== "finished"
    ? el("section", { id: "p-moves", "data-after": String(s.moves.after) },
        el("h2", {}, t("moves_after", { n: s.moves.after })),
        el("div", { class: `move-list${s.moves.moves.length > 24 ? " many" : ""}` }, s.moves.moves.map((m) =>
          el("span", { "data-player": String(m.player) },
            m.to === null ? t("to_out", { name: m.name }) : t("to_table", { name: m.name, n: m.to })))))
    : null;
  let board;
  if (s.hide_standings && s.status !== "finished") {
    board = el("section", { id: "p-board", "data-hidden": "1" }, el("p", { class: "sub" }, t("standings_hidden")));
  } else {
    board = el("section", { id: "p-board" },
      el("div", { class: "cols" }, Object.entries(s.standings).map(([g, rows]) =>
        el("table", { class: "board", "data-group": g },
          el("caption", {}, t(`group_${g}`)),
          el("tbody", {}, rows.slice(0, SHOWN).map((r) => el("tr", { "data-player": String(r.player) },
            el("td", {}, String(r.rank)), el("td", {}, r.name), el("td", { class: "num" }, fmt(r.total)))))))));
  }
  const prizes = s.status === "finished" && s.prizes.length
    ? el("section", { id: "p-prizes" }, el("h2", {}, t("prizes")),
        el("ul", { class: "plain" }, s.prizes.map((p) =>
          el("li", {}, `${t(`prize_${p.category}`)} ${p.place}: ${p.names.join(", ")}`))))
    : null;
  fill(main, head, el("div", { class: "p-grid" }, el("div", { class: "p-left" }, waiting, moves, prizes), board));
  document.body.dataset.version = String(s.version);
}

async function start() {
  await setLanguage(pickLanguage());
  watch(`/api/e/${evening}/projector`, render, (trouble) => {
    errorBox.textContent = trouble || "";
    errorBox.hidden = !trouble;
  });
  document.body.dataset.ready = "1";
}

start();
