// Resuming a log after a reconnect: the page asks for sinceTime, the oldest
// of the newest timestamps it holds per source, and the server resends
// each source from there. What a source had already shown is skipped.
import { TIMESTAMP } from "./render.js";

export class ResumePoint {
  constructor(multi) {
    this.multi = multi;
    // The newest timestamp seen per source ("" for a single container), and
    // the lines at it: a timestamp is not unique, the lines make it so.
    this.lastSeen = new Map();
    // After a reconnect, what to skip per source.
    this.skipping = new Map();
  }

  // fresh records a line and reports whether the page has not shown it.
  fresh(line) {
    const tab = this.multi ? line.indexOf("\t") : -1;
    const src = tab > 0 ? line.slice(0, tab) : "";
    const body = line.slice(tab + 1);
    const ts = body.slice(0, body.indexOf(" "));
    if (!TIMESTAMP.test(ts)) return true;
    const skip = this.skipping.get(src);
    if (skip) {
      if (ts < skip.ts || (ts === skip.ts && skip.lines.has(line))) return false;
      this.skipping.delete(src);
    }
    const seen = this.lastSeen.get(src);
    if (seen?.ts === ts) seen.lines.add(line);
    else this.lastSeen.set(src, { ts, lines: new Set([line]) });
    return true;
  }

  // resume points the reconnect URL u past what the page holds, if anything.
  resume(u) {
    if (this.lastSeen.size === 0) return;
    this.skipping = new Map([...this.lastSeen].map(([src, seen]) => [src, { ts: seen.ts, lines: new Set(seen.lines) }]));
    const oldest = [...this.lastSeen.values()].map((seen) => seen.ts).sort()[0];
    u.searchParams.set("sinceTime", oldest);
    u.searchParams.delete("tailLines");
    u.searchParams.delete("since");
  }
}
