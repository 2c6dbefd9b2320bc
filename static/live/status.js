// The page's live status line ([data-live-status]), shared by every live page.

function statusEl(root) {
  return root.querySelector("[data-live-status]") || document.querySelector("[data-live-status]");
}

export function statusState(root) {
  return statusEl(root)?.dataset.state;
}

export function setStatus(root, state, text) {
  const el = statusEl(root);
  if (!el) return;
  el.dataset.state = state;
  el.textContent = text;
}

// ended reports a closed stream, unless an error already says why.
export function ended(root, text) {
  if (statusState(root) !== "error") setStatus(root, "error", text);
}

// socketStatus is the status handlers lists and object pages share.
export function socketStatus(root) {
  return {
    open: () => setStatus(root, "live", "Live"),
    error: (st) => setStatus(root, "error", `Live updates stopped: ${st?.message || "server error"}`),
    status: (state, text) => setStatus(root, state, text),
    closed: () => ended(root, "Live updates ended. Reload to resume."),
  };
}
