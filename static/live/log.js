// A live log page. Lines arrive whole on channel 1, each starting with the
// server's RFC 3339 timestamp (and, merged, its "pod/container" and a tab).
import { CHANNEL, ChannelSocket, parseJSON } from "./channel.js";
import { BoundedLines } from "./lines.js";
import { lineRenderer, markLine } from "./render.js";
import { ResumePoint } from "./resume.js";
import { setStatus, statusState } from "./status.js";

// lineSplitter turns the stream's chunks into whole lines; a line cut off
// by a dropped connection comes again whole, so reset() forgets it.
function lineSplitter() {
  let decoder = new TextDecoder();
  let partial = "";
  return {
    push(bytes) {
      const lines = (partial + decoder.decode(bytes, { stream: true })).split("\n");
      partial = lines.pop();
      return lines;
    },
    // rest returns the unterminated tail of a stream that ended.
    rest() {
      const tail = partial;
      partial = "";
      return tail ? [tail] : [];
    },
    reset() {
      partial = "";
      decoder = new TextDecoder();
    },
  };
}

// searchBox keeps the search and "only matching" state, re-marks the lines
// already shown when either changes, and mirrors both into the URL.
function searchBox(out, search, filter, changed) {
  const state = { query: "", filter: false };
  const read = () => {
    state.query = (search?.value || "").toLowerCase();
    state.filter = Boolean(filter?.checked);
  };
  read();
  const rerender = () => {
    read();
    for (const line of out.querySelectorAll(".log-line")) {
      const text = line.querySelector(".log-text");
      markLine(line, text, text.textContent, state);
    }
    changed();
    const u = new URL(location.href);
    if (state.query) u.searchParams.set("q", search.value);
    else u.searchParams.delete("q");
    if (state.filter) u.searchParams.set("filter", "1");
    else u.searchParams.delete("filter");
    history.replaceState(null, "", u);
  };
  search?.addEventListener("input", rerender);
  // The search filters in place; Enter must not reload the page.
  search?.addEventListener("keydown", (e) => {
    if (e.key === "Enter") e.preventDefault();
  });
  filter?.addEventListener("change", rerender);
  return state;
}

// pauseButton toggles between holding lines back and showing them.
function pauseButton(button, toggled) {
  let paused = false;
  button?.addEventListener("click", () => {
    paused = !paused;
    button.setAttribute("aria-pressed", String(paused));
    button.textContent = paused ? "Resume" : "Pause";
    toggled(paused);
  });
  return () => paused;
}

// checkOnEnter lets Enter toggle the form's checkboxes, as Space does,
// instead of submitting the form unchanged.
function checkOnEnter(form) {
  form?.addEventListener("keydown", (e) => {
    const t = e.target;
    if (e.key !== "Enter" || !(t instanceof HTMLInputElement) || t.type !== "checkbox") return;
    e.preventDefault();
    t.click();
  });
}

export function liveLog(out) {
  const max = Math.max(10, Number(out.dataset.max) || 5000);
  const multi = out.dataset.multi === "true";
  const follow = out.dataset.follow === "true";
  const form = document.querySelector("[data-log-controls]");
  const counter = document.querySelector("[data-log-count]");
  const stamps = form?.querySelector("[name=timestamps]");
  const render = lineRenderer(multi);
  const resume = new ResumePoint(multi);
  const splitter = lineSplitter();
  // Lines not yet on the page: held while paused, or until the next frame.
  const queue = new BoundedLines(max);
  let pageDropped = 0;
  let frameQueued = false;

  out.classList.toggle("log-hide-ts", !stamps?.checked);

  const search = searchBox(out, document.querySelector("[data-log-search]"), document.querySelector("[data-log-filter]"), () => updateCount());
  const paused = pauseButton(document.querySelector("[data-log-pause]"), () => {
    schedule();
    updateCount();
  });
  checkOnEnter(form);

  const dropped = () => pageDropped + queue.dropped;
  // The queue and drops, for whoever inspects the page (tests, devtools).
  const publish = () => {
    out.dataset.queued = String(queue.length);
    out.dataset.dropped = String(dropped());
  };
  const updateCount = () => {
    const parts = [`${out.querySelectorAll(".log-line").length} lines`];
    if (search.filter && search.query) parts.push(`${out.querySelectorAll(".log-line:not(.log-hidden)").length} matching`);
    if (dropped()) parts.push(`showing the last ${max}; ${dropped()} older dropped from the page`);
    if (paused()) parts.push(`${queue.length} waiting`);
    counter.textContent = parts.join(" · ");
    publish();
  };
  const flush = () => {
    frameQueued = false;
    if (paused() || queue.length === 0) return;
    const stick = out.scrollTop + out.clientHeight >= out.scrollHeight - 24;
    const frag = document.createDocumentFragment();
    for (const line of queue.take()) frag.append(render(line, search));
    out.append(frag);
    while (out.childElementCount > max) {
      out.firstElementChild.remove();
      pageDropped++;
    }
    if (stick) out.scrollTop = out.scrollHeight;
    updateCount();
  };
  const schedule = () => {
    if (frameQueued || paused()) return;
    frameQueued = true;
    requestAnimationFrame(flush);
  };
  const add = (lines) => {
    queue.push(lines);
    if (paused()) updateCount();
    else publish();
    schedule();
  };
  const note = (text) => {
    const div = document.createElement("div");
    div.className = "log-note";
    div.textContent = text;
    out.append(div);
  };


  const socket = new ChannelSocket(
    () => {
      const u = new URL(location.href);
      for (const k of ["q", "filter", "wrap", "max"]) u.searchParams.delete(k);
      u.searchParams.set("follow", follow ? "1" : "0");
      splitter.reset();
      resume.resume(u);
      return u.pathname + u.search;
    },
    {
      open: () => setStatus(document, "live", follow ? "Following" : "Loading…"),
      frame: (channel, payload) => {
        if (channel === CHANNEL.data) {
          add(splitter.push(payload).filter((line) => resume.fresh(line)));
        } else if (channel === CHANNEL.diagnostics) {
          const msg = parseJSON(payload);
          if (msg?.message) note(msg.message);
        }
      },
      error: (st) => {
        note(st?.message || "The log stream failed.");
        setStatus(document, "error", "Stopped");
      },
      status: (state, text) => setStatus(document, state, text),
      closed: (e) => {
        const tail = splitter.rest();
        if (tail.length) add(tail);
        if (statusState(document) === "error") return;
        if (e.code === 1000) setStatus(document, "", follow ? "Stream ended" : "Complete");
        else setStatus(document, "error", "Disconnected");
      },
    },
  );
  addEventListener("pagehide", () => socket.stop());
}
