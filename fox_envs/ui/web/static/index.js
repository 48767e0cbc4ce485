// The menu: a new game (game, params, seats, seed, max moves) to play or watch; quick starts.
"use strict";

(async () => {
  const gameSelect = document.getElementById("game");
  const seatsInput = document.getElementById("seats-input");
  let games = [];

  function current() { return games.find((g) => g.env_id === gameSelect.value); }

  function showGame() {
    const game = current();
    const params = document.getElementById("params");
    params.replaceChildren(...Object.entries(game.params).map(([name, param]) => {
      const label = document.createElement("label");
      const input = document.createElement("input");
      input.name = name;
      input.className = "param";
      input.placeholder = JSON.stringify(param.default);
      input.title = `allowed: ${param.allowed}`;
      input.addEventListener("change", countSeats);
      label.append(`${name} `, input);
      return label;
    }));
    seatsInput.value = ["human", ...Array(game.players - 1).fill("heuristic")].join(",");
    document.getElementById("agent-names").replaceChildren(
      ...["human", ...game.agents].map((name) => new Option(name)));
    document.getElementById("seat-hint").textContent =
      `one per seat, comma-separated (${game.players} seats by default): human, ${game.agents.join(", ")}`;
  }

  // The params may change the number of seats: ask the server, then fit the seats to it.
  async function countSeats() {
    const query = new URLSearchParams({game: gameSelect.value});
    for (const input of document.querySelectorAll("#params input")) {
      if (input.value.trim()) query.set(input.name, input.value.trim());
    }
    try {
      const {players} = await fox.request(`/api/seats?${query}`);
      const seats = seatsInput.value.split(",").map((s) => s.trim()).filter(Boolean).slice(0, players);
      while (seats.length < players) seats.push("heuristic");
      seatsInput.value = seats.join(",");
      fox.message("");
    } catch (error) {
      fox.message(error.message);
    }
  }

  function url(path) {
    const query = new URLSearchParams({game: gameSelect.value, seats: seatsInput.value});
    for (const input of document.querySelectorAll("#params input")) {
      if (input.value.trim()) query.set(input.name, input.value.trim());
    }
    for (const id of ["seed", "max-moves"]) {
      const input = document.getElementById(id);
      if (input.value.trim()) query.set(input.name, input.value.trim());
    }
    return `${path}?${query}`;
  }

  try {
    games = (await fox.request("/api/games")).games;
  } catch (error) {
    fox.message(error.message);
    return;
  }
  gameSelect.replaceChildren(...games.map((g) => new Option(`${g.title} (${g.env_id})`, g.env_id)));
  gameSelect.addEventListener("change", showGame);
  showGame();
  document.getElementById("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    window.location.href = url("/play");
  });
  document.getElementById("watch-button").addEventListener("click", () => {
    if (seatsInput.value.split(",").includes("human")) {
      seatsInput.value = seatsInput.value.split(",").map((s) => (s === "human" ? "random" : s)).join(",");
    }
    window.location.href = url("/watch");
  });
  document.getElementById("quick").replaceChildren(...games.map((g) => {
    const item = document.createElement("li");
    const others = Array(g.players - 1).fill("heuristic");
    const play = document.createElement("a");
    play.href = `/play?game=${g.env_id}&seats=${["human", ...others].join(",")}`;
    play.textContent = `play ${g.title}`;
    const watch = document.createElement("a");
    watch.href = `/watch?game=${g.env_id}&seats=${["heuristic", ...Array(g.players - 1).fill("random")].join(",")}`;
    watch.textContent = "watch";
    item.append(play, " \u00b7 ", watch);
    return item;
  }));
})();
