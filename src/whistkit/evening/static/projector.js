// The projector: the hand in progress, the tables still to report, the moves after each
// hand, the leaderboard by group (hidden until the end when the host says so), prizes.
// Made to be read from the back of a hall (1920x1080 or 1280x720): the moves in large
// type, by name, in as many columns as fit; the table number is never cut off; what does
// not fit on one screen is shown a page at a time, the pages taking turns.
import { contractName, el, language, pickLanguage, setLanguage, t, watch, fill } from "./ev.js";

const main = document.getElementById("main");
const errorBox = document.getElementById("error");
const evening = location.pathname.split("/")[2];
const PAGE_SECONDS = 8; // a page of moves is shown this long before the next
const MANY_WAITING = 30; // more tables than this still to report: their count, not numbers
// more moves than this: they take the whole screen, the standings a page of their own in
// the turns (beside the standings they would take too many pages)
const SPLIT_MOST = 24;
let movePage = 0;
let moveKey = "";
let pageTimer = null;
let boardPage = 0; // the leaderboard's page on screen (its pages take turns too)
let boardKey = "";
let boardTimer = null;

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
  const many = cur && cur.waiting.length > MANY_WAITING;
  const waiting = cur && s.status !== "finished"
    ? el("section", { id: "p-waiting", "data-count": String(cur.waiting.length) },
        el("h2", {}, many ? t("tables_to_report", { n: cur.waiting.length }) : t("still_to_report")),
        many ? null : el("p", { class: "nums" }, cur.waiting.length ? cur.waiting.join("  ") : "✓"))
    : null;
  const list = s.moves && s.status !== "finished" ? [...s.moves.moves] : [];
  // by name: a player looks for their own name
  list.sort((a, b) => a.name.localeCompare(b.name, language(), { numeric: true }));
  const moves = list.length
    ? el("section", { id: "p-moves", "data-after": String(s.moves.after) },
        el("h2", {}, t("moves_after", { n: s.moves.after }), " ", el("small", { id: "p-page" })),
        el("div", { class: "move-list" }, list.map(moveItem)))
    : null;
  let board;
  if (s.hide_standings && s.status !== "finished") {
    board = el("section", { id: "p-board", "data-hidden": "1" }, el("p", { class: "sub" }, t("standings_hidden")));
  } else {
    board = el("section", { id: "p-board" },
      el("div", { class: "cols" }, Object.entries(s.standings).map(([g, rows]) =>
        el("table", { class: "board", "data-group": g },
          el("caption", {}, t(`group_${g}`), " ", el("span", { class: "board-page" })),
          el("tbody", {}, rows.map((r) => el("tr", { "data-player": String(r.player) },
            el("td", {}, String(r.rank)), el("td", {}, r.name), el("td", { class: "num" }, fmt(r.total)))))))));
  }
  const prizes = s.status === "finished" && s.prizes.length
    ? el("section", { id: "p-prizes" }, el("h2", {}, t("prizes")),
        el("ul", { class: "plain" }, s.prizes.map((p) => prizeItem(p, s.prizes))))
    : null;
  const hiddenBoard = board.dataset.hidden === "1";
  const layout = prizes ? "prizes"
    : moves ? (hiddenBoard ? "moves-only" : list.length > SPLIT_MOST ? "rotate" : "moves") : "board";
  fill(main, head, waiting,
    el("div", { class: `p-grid p-${layout}` }, moves || prizes ? el("div", { class: "p-left" }, moves, prizes) : null, board));
  document.body.dataset.version = String(s.version);
  const rowsKey = Object.values(s.standings).map((rows) => rows.length).join(",");
  if (rowsKey !== boardKey) boardPage = 0;
  boardKey = rowsKey;
  const key = moves ? `${s.moves.after}:${list.length}` : "";
  if (key !== moveKey) movePage = 0;
  moveKey = key;
  paginate();
}

// "Anna Jónsdóttir" and "→ 5" apart: the name may be cut short on a narrow screen, the
// table never
function moveItem(m) {
  const text = m.to === null ? t(m.leaves ? "to_home" : "to_out") : t("to_table", { n: m.to });
  const at = text.indexOf("{name}");
  const before = at > 0 ? text.slice(0, at) : "";
  const after = at >= 0 ? text.slice(at + "{name}".length) : text;
  return el("div", { class: "mv", "data-player": String(m.player), "data-to": m.to === null ? "" : String(m.to) },
    el("span", { class: "nm" }, before, m.name), el("span", { class: "to" }, after));
}

// "Lowest total: Jón Jónsson (41)": the place only where the category has more than one,
// and what the prize was won with
function prizeItem(p, all) {
  const places = all.filter((q) => q.category === p.category).length;
  const what = places > 1 ? t("prize_place", { prize: t(`prize_${p.category}`), n: p.place }) : t(`prize_${p.category}`);
  return el("li", { "data-category": p.category },
    `${what}: `, el("b", {}, p.names.join(", ")), p.value !== null && p.value !== undefined ? ` (${fmt(p.value)})` : "");
}

// The leaderboard a page at a time where the screen does not hold it: as many rows of
// each group as fit (measured), the groups' pages turning together every PAGE_SECONDS.
function paginateBoard(advance = false) {
  const board = main.querySelector("#p-board");
  if (!board || board.dataset.hidden === "1" || !board.offsetParent) return;
  const groups = [...board.querySelectorAll("table.board")].map((tb) => [...tb.tBodies[0].rows]);
  const most = Math.max(0, ...groups.map((rows) => rows.length));
  const show = (per, page) => groups.forEach((rows) => rows.forEach((r, i) => { r.hidden = Math.floor(i / per) !== page; }));
  // the most rows a page holds: the largest that does not overflow (a binary search)
  let low = 1;
  let high = Math.max(1, most);
  show(high, 0);
  if (board.scrollHeight > board.clientHeight + 1) {
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      show(mid, 0);
      if (board.scrollHeight > board.clientHeight + 1) high = mid - 1;
      else low = mid;
    }
  } else low = high;
  const per = low;
  const pages = Math.max(1, Math.ceil(most / per));
  if (advance) boardPage += 1;
  if (boardPage >= pages) boardPage = 0;
  show(per, boardPage);
  board.dataset.pages = String(pages);
  board.dataset.page = String(boardPage + 1);
  for (const e of board.querySelectorAll(".board-page")) e.textContent = pages > 1 ? `${boardPage + 1}/${pages}` : "";
}

// Every winner on the screen: the prizes' type made smaller (down to half) until the list
// fits beside the leaderboard
function fitPrizes() {
  const box = main.querySelector("#p-prizes");
  if (!box) return;
  const list = box.querySelector("ul");
  list.style.fontSize = "";
  for (let k = 0.95; box.scrollHeight > box.clientHeight + 1 && k >= 0.5; k -= 0.05) {
    list.style.fontSize = `${k}em`;
  }
}

function startBoardTurns() {
  if (boardTimer) clearInterval(boardTimer);
  boardTimer = null;
  fitPrizes();
  paginateBoard();
  const grid = main.querySelector(".p-grid");
  // where the standings are a turn of their own among the moves, they turn with those
  if (grid && grid.classList.contains("p-rotate")) return;
  const board = main.querySelector("#p-board");
  if (board && Number(board.dataset.pages || 1) > 1) {
    boardTimer = setInterval(() => paginateBoard(true), PAGE_SECONDS * 1000);
  }
}

// As many columns as the longest entry allows, as many rows as the height allows; the
// pages of a longer list take turns.
let boardShownOnce = false;

function paginate() {
  const box = main.querySelector("#p-moves .move-list");
  const grid = main.querySelector(".p-grid");
  if (pageTimer) clearInterval(pageTimer);
  pageTimer = null;
  boardShownOnce = false;
  if (!box) {
    startBoardTurns();
    return;
  }
  const rotate = grid.classList.contains("p-rotate");
  grid.dataset.show = "moves";
  const items = [...box.children];
  for (const e of items) e.hidden = false;
  box.style.gridTemplateColumns = "";
  box.style.gridTemplateRows = "";
  const style = getComputedStyle(box);
  const gapX = parseFloat(style.columnGap) || 0;
  const gapY = parseFloat(style.rowGap) || 0;
  let widest = 0;
  let high = 0;
  for (const e of items) {
    widest = Math.max(widest, e.querySelector(".nm").scrollWidth + e.querySelector(".to").scrollWidth);
    high = Math.max(high, e.getBoundingClientRect().height);
  }
  const cols = Math.max(1, Math.floor((box.clientWidth + gapX) / (widest + 8 + gapX)));
  const rows = Math.max(1, Math.floor((box.clientHeight + gapY) / (high + gapY)));
  const per = Math.max(1, Math.min(items.length, cols * rows));
  const pages = Math.ceil(items.length / per);
  const turns = pages + (rotate ? 1 : 0); // the standings' own page last
  const used = Math.min(cols, Math.ceil(Math.min(items.length, per) / rows));
  box.style.gridTemplateColumns = `repeat(${used}, minmax(0, 1fr))`;
  box.style.gridTemplateRows = `repeat(${Math.min(rows, items.length)}, auto)`;
  box.dataset.pages = String(pages);
  const show = () => {
    if (movePage >= turns) movePage = 0;
    const before = grid.dataset.show;
    grid.dataset.show = movePage < pages ? "moves" : "board";
    // the standings' own turn: their next page (measured now that they are shown)
    if (grid.dataset.show === "board") paginateBoard(before === "board" || boardShownOnce);
    if (grid.dataset.show === "board") boardShownOnce = true;
    items.forEach((e, i) => { e.hidden = Math.floor(i / per) !== movePage; });
    box.dataset.page = String(movePage + 1);
    document.getElementById("p-page").textContent = pages > 1 ? `· ${Math.min(movePage, pages - 1) + 1}/${pages}` : "";
  };
  show();
  startBoardTurns();
  if (turns > 1) {
    pageTimer = setInterval(() => {
      movePage = (movePage + 1) % turns;
      show();
    }, PAGE_SECONDS * 1000);
  }
}

async function start() {
  await setLanguage(pickLanguage());
  addEventListener("resize", () => paginate());
  // a key turns the leaderboard's page at once (the host's keyboard, and the tests)
  addEventListener("keydown", (e) => {
    if (e.key === "PageDown" || e.key === "ArrowDown") paginateBoard(true);
  });
  watch(`/api/e/${evening}/projector`, render, (trouble) => {
    const was = !errorBox.hidden;
    errorBox.textContent = trouble || "";
    errorBox.hidden = !trouble;
    if (was !== !errorBox.hidden) paginate(); // the line takes room: measured again
  });
  document.body.dataset.ready = "1";
}

start();
