// The game page: play by clicking the board, watch agents (pause, step, speed), hot-seat gate.
"use strict";

(() => {
  const page = document.body.dataset;
  const board = document.getElementById("board");
  const status = document.getElementById("status");
  const gate = document.getElementById("gate");
  const pauseButton = document.getElementById("pause");
  const stepButton = document.getElementById("step");
  const speed = document.getElementById("speed");
  const viewerSelect = document.getElementById("viewer");
  const DELAYS = [2000, 1200, 800, 500, 250, 100, 0];  // ms between agent moves, slow to fast

  let view = null;
  let seatShown = null;   // hot seat: the seat whose view is on the screen (null: none yet)
  let watchViewer = "all";
  let paused = false;
  let timer = null;
  let busy = false;

  function viewer() {
    if (!view || view.over) return view ? "all" : "default";
    if (view.hot_seat) return seatShown === null ? "default" : String(seatShown);
    if (view.humans.length === 0) return watchViewer;
    return "default";
  }

  function agentsSit(v) { return v.humans.length < v.seats.length; }

  function statusText(v) {
    return v.over ? `${v.status}. ${v.result.text}` : v.status;
  }

  function prompt(v) {
    if (v.over) return "";
    const name = v.seat_names[v.to_move];
    if (v.human_to_move) return `${name}, your move: click a highlighted ${v.pending ? "part to go on" : "part"}.`;
    return paused ? `paused: ${name} moves when you click step.` : `${name} is thinking...`;
  }

  function showGate(seat) {
    board.replaceChildren();
    board.dataset.viewer = "";
    document.getElementById("log").replaceChildren();
    document.getElementById("pending").textContent = "";
    document.getElementById("prompt").textContent = "";
    document.getElementById("back").hidden = true;
    document.getElementById("gate-text").textContent =
      `player_${seat} to move: pass the screen to player_${seat}, then click below (the others look away).`;
    gate.hidden = false;
    status.textContent = `waiting for player_${seat} to take the seat`;
    status.removeAttribute("data-result");
  }

  function render(v) {
    view = v;
    clearTimeout(timer);
    document.getElementById("title").textContent = `${v.title}: ${v.seat_names.join(" vs ")}`;
    document.title = `fox_envs: ${v.title}`;
    fox.drawSeats(document.getElementById("seats"), v);
    document.getElementById("controls").hidden = !agentsSit(v) || v.over;
    document.getElementById("viewer-box").hidden = v.humans.length > 0;
    if (v.humans.length === 0 && !viewerSelect.options.length) {
      fox.viewerChoices(viewerSelect, v.seats.length, watchViewer);
    }
    const next = v.human_to_move ? v.to_move : null;
    if (v.hot_seat && !v.over && next !== null && next !== seatShown) {
      showGate(next);
      return;
    }
    gate.hidden = true;
    fox.drawBoard(board, v.svg, v.options);
    board.dataset.viewer = v.viewer === null ? "all" : String(v.viewer);
    fox.drawLog(document.getElementById("log"), v.log);
    document.getElementById("prompt").textContent = prompt(v);
    document.getElementById("pending").textContent = v.pending ? `Move so far: ${v.pending}` : "";
    document.getElementById("back").hidden = !v.can_go_back;
    status.textContent = statusText(v);
    fox.setResult(status, v);
    document.getElementById("save-box").hidden = !v.over && v.humans.length > 0 && !v.perfect_information;
    stepButton.disabled = !paused || v.over || v.human_to_move;
    if (!v.over && !v.human_to_move && !paused) {
      timer = setTimeout(agentMove, DELAYS[Number(speed.value)]);
    }
  }

  async function send(url, body) {
    if (busy) return;
    busy = true;
    document.body.classList.add("busy");
    try {
      const v = await fox.request(url, body);
      fox.message("");
      render(v);
    } catch (error) {
      fox.message(error.message);
    } finally {
      busy = false;
      document.body.classList.remove("busy");
    }
  }

  function refresh() {
    return send(`/api/state?session=${encodeURIComponent(page.session)}&viewer=${viewer()}`);
  }

  function agentMove() {
    if (!view || view.over || view.human_to_move) return;
    return send("/api/agent_move", {session: page.session, viewer: viewer()});
  }

  board.addEventListener("click", (event) => {
    const part = event.target.closest("[data-action]");
    if (!part || !part.classList.contains("legal") || !view || !view.human_to_move) return;
    send("/api/choose", {session: page.session, label: part.dataset.action, viewer: viewer()});
  });
  document.getElementById("back").addEventListener("click",
    () => send("/api/back", {session: page.session, viewer: viewer()}));
  document.getElementById("take-seat").addEventListener("click", () => {
    seatShown = view.to_move;
    refresh();
  });
  pauseButton.addEventListener("click", () => {
    paused = !paused;
    pauseButton.textContent = paused ? "resume" : "pause";
    if (view) render(view);
  });
  stepButton.addEventListener("click", () => agentMove());
  speed.addEventListener("input", () => {
    document.getElementById("speed-text").textContent = `${DELAYS[Number(speed.value)]} ms a move`;
  });
  viewerSelect.addEventListener("change", () => {
    watchViewer = viewerSelect.value;
    refresh();
  });
  document.getElementById("speed-text").textContent = `${DELAYS[Number(speed.value)]} ms a move`;
  document.getElementById("again").href = window.location.pathname + window.location.search;

  if (page.error) {
    status.textContent = "could not start the game";
    fox.message(page.error);
    document.getElementById("save-box").hidden = true;
  } else {
    document.getElementById("save-record").href = `/api/record?session=${encodeURIComponent(page.session)}`;
    refresh();
  }
})();
