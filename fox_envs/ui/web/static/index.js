// The menu: a new game (game, params, seats, seed, max moves) to play or watch; quick starts.
"use strict";

(async () => {
  const gameSelect = document.getElementById("game");
  const variantSelect = document.getElementById("variant");
  let games = [];

  function current() { return games.find((g) => g.env_id === gameSelect.value); }

  function paramInputs() { return [...document.querySelectorAll("#params input")]; }

  function seatNames() {
    return [...document.querySelectorAll("#seats input")].map((input) => input.value.trim());
  }

  // One field per seat (an agent name, typed or picked from the list): `players` of them.
  function showSeats(players, names) {
    const fields = Array.from({length: players}, (_, seat) => {
      const label = document.createElement("label");
      const input = document.createElement("input");
      input.className = "seat";
      input.id = `seat-${seat}`;
      input.setAttribute("list", "agent-names");
      input.value = names[seat] || (seat === 0 ? "human" : "heuristic");
      label.append(`player_${seat} `, input);
      return label;
    });
    const legend = document.querySelector("#seats legend");
    document.getElementById("seats").replaceChildren(legend, ...fields);
  }

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
    variantSelect.replaceChildren(...game.variants.map((variant, k) => new Option(
      Object.keys(variant).length ? Object.entries(variant).map(([n, v]) => `${n}=${JSON.stringify(v)}`).join(", ")
        : "the standard game", String(k))));
    showSeats(game.players, []);
    document.getElementById("agent-names").replaceChildren(
      ...["human", ...game.agents, ...policies].map((name) => new Option(name)));
    document.getElementById("seat-hint").textContent =
      `each seat: human, ${game.agents.join(", ")} (options as mcts:simulations=200)`;
  }

  // The params may change the number of seats: ask the server, then fit the seats to it.
  async function countSeats() {
    const query = new URLSearchParams({game: gameSelect.value});
    for (const input of paramInputs()) {
      if (input.value.trim()) query.set(input.name, input.value.trim());
    }
    try {
      const {players} = await fox.request(`/api/seats?${query}`);
      showSeats(players, seatNames());
      fox.message("");
    } catch (error) {
      fox.message(error.message);
    }
  }

  function url(path) {
    const query = new URLSearchParams({game: gameSelect.value, seats: seatNames().join(",")});
    for (const input of paramInputs()) {
      if (input.value.trim()) query.set(input.name, input.value.trim());
    }
    for (const id of ["seed", "max-moves"]) {
      const input = document.getElementById(id);
      if (input.value.trim()) query.set(input.name, input.value.trim());
    }
    return `${path}?${query}`;
  }

  let policies = [];
  try {
    ({games, policies} = await fox.request("/api/games"));
  } catch (error) {
    fox.message(error.message);
    return;
  }
  gameSelect.replaceChildren(...games.map((g) => new Option(`${g.title} (${g.env_id})`, g.env_id)));
  gameSelect.addEventListener("change", showGame);
  variantSelect.addEventListener("change", () => {
    const variant = current().variants[Number(variantSelect.value)];
    for (const input of paramInputs()) {
      input.value = input.name in variant ? JSON.stringify(variant[input.name]) : "";
    }
    countSeats();
  });
  showGame();
  document.getElementById("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    window.location.href = url("/play");
  });
  document.getElementById("watch-button").addEventListener("click", () => {
    for (const input of document.querySelectorAll("#seats input")) {
      if (input.value.trim() === "human") input.value = "random";
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
