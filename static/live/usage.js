// Usage charts of pod and node pages: the server draws the chart; this
// asks it for the next one once per metrics-server period while the page is
// shown. The chart element carries its own history (data-usage-history),
// sent back with each request, so the server keeps nothing per page; the
// answer is the chart again, with one more sample when metrics-server has
// a new one.

// fragment parses the server's chart markup into its element.
function fragment(html) {
  const t = document.createElement("template");
  t.innerHTML = html;
  const el = t.content.firstElementChild;
  return el?.matches("[data-usage-src]") ? el : null;
}

// Statuses after which asking again cannot help: the server refused the
// history, or the user may not read the metrics (any more).
const final = new Set([400, 401, 403]);
const maxBackoff = 5 * 60 * 1000;

function follow(chart) {
  let failures = 0;
  const every = () => Math.max(Number(chart.dataset.usageEvery) || 15000, 1000);
  const later = () => setTimeout(tick, failures ? Math.min(every() * 2 ** failures, maxBackoff) : every());

  async function tick() {
    if (!chart.isConnected) return;
    if (document.hidden) {
      // No samples for a page nobody sees; the next one comes when it shows.
      document.addEventListener("visibilitychange", tick, { once: true });
      return;
    }
    const u = new URL(chart.dataset.usageSrc, location.href);
    if (chart.dataset.usageHistory) u.searchParams.set("history", chart.dataset.usageHistory);
    try {
      const res = await fetch(u, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } });
      if (final.has(res.status)) return;
      const next = res.ok ? fragment(await res.text()) : null;
      if (next && chart.isConnected) {
        chart.replaceWith(next);
        chart = next;
      }
      // A pod not scraped yet (404) or metrics-server away (503): ask less often.
      failures = next ? 0 : failures + 1;
    } catch {
      failures++;
    }
    later();
  }
  later();
}

export function usageCharts() {
  for (const chart of document.querySelectorAll("[data-usage-src]")) follow(chart);
}
