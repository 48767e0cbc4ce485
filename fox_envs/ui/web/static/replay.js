// The replay page: open a game record (uploaded, or a file of `serve --records DIR`), step back and forth, as any viewer.
"use strict";

(() => {
  const page = document.body.dataset;
  const status = document.getElementById("status");
  const viewerSelect = document.getElementById("viewer");
  let session = page.session || null;
  let view = null;

  function render(v) {
    view = v;
    document.getElementById("title").textContent = `replay: ${v.title}, ${v.seat_names.join(" vs ")}`;
    document.getElementById("replay-controls").hidden = false;
    if (!viewerSelect.options.length) fox.viewerChoices(viewerSelect, v.seat_names.length, "all");
    fox.drawBoard(document.getElementById("board"), v.svg, []);
    fox.drawLog(document.getElementById("log"), v.log);
    fox.drawSeats(document.getElementById("seats"), {...v, to_move: null});
    document.getElementById("step-text").textContent =
      `step ${v.step + 1} of ${v.steps} (action ${v.action_index} of ${v.actions})`;
    document.getElementById("first").disabled = document.getElementById("prev").disabled = v.step === 0;
    document.getElementById("next").disabled = document.getElementById("last").disabled = v.step === v.steps - 1;
    status.textContent = v.result ? `${v.status}. ${v.result.text}` : v.status;
    fox.setResult(status, v);
  }

  async function show(step) {
    if (!session) return;
    try {
      render(await fox.request(
        `/api/replay?session=${encodeURIComponent(session)}&step=${step}&viewer=${viewerSelect.value || "all"}`));
      fox.message("");
    } catch (error) {
      fox.message(error.message);
    }
  }

  async function open(text) {
    try {
      const v = await fox.request("/api/replay", text);
      session = v.session;
      viewerSelect.replaceChildren();
      fox.message("");
      render(v);
    } catch (error) {
      status.textContent = "could not open the record";
      fox.message(error.message);
    }
  }

  document.getElementById("record-file").addEventListener("change", (event) => {
    const file = event.target.files[0];
    if (file) file.text().then(open);
  });
  document.getElementById("first").addEventListener("click", () => show(0));
  document.getElementById("prev").addEventListener("click", () => show(Math.max(0, view.step - 1)));
  document.getElementById("next").addEventListener("click", () => show(Math.min(view.steps - 1, view.step + 1)));
  document.getElementById("last").addEventListener("click", () => show(view.steps - 1));
  viewerSelect.addEventListener("change", () => show(view ? view.step : 0));
  document.addEventListener("keydown", (event) => {
    if (!view || event.target.tagName === "INPUT") return;
    if (event.key === "ArrowLeft" && view.step > 0) show(view.step - 1);
    if (event.key === "ArrowRight" && view.step < view.steps - 1) show(view.step + 1);
  });

  fox.request("/api/records").then((listing) => {
    document.getElementById("record-list").replaceChildren(...listing.files.map((name) => {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = `/replay?file=${encodeURIComponent(name)}`;
      link.textContent = name;
      item.append(link);
      return item;
    }));
  }).catch(() => {});

  if (page.error) {
    status.textContent = "could not open the record";
    fox.message(page.error);
  } else if (session) {
    show(0);
  }
})();
