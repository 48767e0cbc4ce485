// Shared by the pages: JSON requests and the small pieces every page draws.
"use strict";

const fox = {
  // GET or POST JSON; resolves to the reply's data, or rejects with the server's message.
  async request(url, body) {
    const options = body === undefined ? {} : {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: typeof body === "string" ? body : JSON.stringify(body),
    };
    let reply;
    try {
      reply = await fetch(url, options);
    } catch (error) {
      throw new Error("the server does not answer (is `python -m fox_envs serve` still running?)");
    }
    let data;
    try {
      data = await reply.json();
    } catch (error) {
      throw new Error(`the server answered ${reply.status} without JSON`);
    }
    if (!reply.ok) {
      throw new Error(data.error || `the server answered ${reply.status}`);
    }
    return data;
  },

  message(text) {
    const box = document.getElementById("message");
    box.textContent = text || "";
    box.classList.toggle("shown", Boolean(text));
  },

  // The board's SVG, its clickable parts marked: `legal` for the labels offered now.
  drawBoard(board, svg, options) {
    board.innerHTML = svg || "";
    const drawing = board.querySelector("svg");
    if (drawing) {  // small boards drawn larger, within the window
      const width = Number(drawing.getAttribute("width")) || 400;
      const height = Number(drawing.getAttribute("height")) || 400;
      const scale = Math.max(1, Math.min(1.6, 780 / width, (window.innerHeight - 150) / height));
      drawing.style.width = `${Math.round(width * scale)}px`;
    }
    const offered = new Set(options || []);
    for (const part of board.querySelectorAll("[data-action]")) {
      const legal = offered.has(part.dataset.action);
      part.classList.toggle("legal", legal);
      part.classList.toggle("idle", !legal);
    }
  },

  drawLog(list, lines) {
    list.replaceChildren(...lines.map((line) => {
      const item = document.createElement("li");
      item.className = line.kind;
      item.textContent = line.text;
      return item;
    }));
    list.scrollTop = list.scrollHeight;
  },

  drawSeats(list, view) {
    list.replaceChildren(...view.seat_names.map((name, seat) => {
      const item = document.createElement("li");
      item.textContent = name;
      item.classList.toggle("to-move", view.to_move === seat);
      return item;
    }));
  },

  setResult(status, view) {
    if (view.result) {
      status.setAttribute("data-result", view.result.code);
    } else {
      status.removeAttribute("data-result");
    }
  },

  viewerChoices(select, count, current) {
    const choices = [["all", "full board"]];
    for (let seat = 0; seat < count; seat += 1) choices.push([String(seat), `player_${seat}`]);
    select.replaceChildren(...choices.map(([value, text]) => new Option(text, value, false, value === current)));
  },
};
