import Foundation

/// The HTML, styles and script of the inspector page (see ``ActionLog/writeInspectorPage(of:reducers:startingFrom:to:title:)``).
///
/// The script reads the data from the `application/json` script element and builds every element
/// with DOM calls, setting text with `textContent` only: no string from the data is ever parsed
/// as markup. The timeline draws only the rows in view; the state at a step is the checkpoint
/// before it with the changes since applied, kept so that moving one step applies one step's
/// changes.
enum InspectorPage {
    static func html(data: [UInt8]) -> Data {
        var page = Data(head.utf8)
        page.append(contentsOf: data)
        page.append(contentsOf: tail.utf8)
        return page
    }

    private static let head = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'none'; connect-src 'none'; font-src 'none'; form-action 'none'; base-uri 'none'">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Inspector</title>
        <style>
        :root { --row: 24px; font: 13px/1.4 -apple-system, system-ui, "Segoe UI", sans-serif; color: #1d1d1f; }
        body { margin: 0; display: grid; grid-template-rows: auto 1fr; height: 100vh; }
        header { display: flex; gap: 8px; align-items: center; padding: 6px 10px; border-bottom: 1px solid #ccc; background: #f5f5f7; }
        header h1 { font-size: 14px; margin: 0 12px 0 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 30%; }
        header input { font: inherit; padding: 3px 6px; min-width: 14em; }
        #count { color: #666; margin-left: auto; }
        main { display: grid; grid-template-columns: minmax(280px, 38%) 1fr; min-height: 0; }
        #timeline { overflow-y: auto; position: relative; border-right: 1px solid #ccc; outline: none; }
        #timeline:focus-visible { box-shadow: inset 0 0 0 2px #0a66d8; }
        #rows { position: relative; }
        .row { position: absolute; left: 0; right: 0; height: var(--row); display: flex; gap: 8px; align-items: center; padding: 0 8px; box-sizing: border-box; cursor: pointer; white-space: nowrap; overflow: hidden; border-bottom: 1px solid #eee; }
        .row.child { padding-left: 32px; color: #444; }
        .row.cursor { background: #e8f0fe; }
        .row.open { background: #0a66d8; color: #fff; }
        .row .n { color: #888; min-width: 4em; text-align: right; font-variant-numeric: tabular-nums; }
        .row.open .n { color: #dde; }
        .row .id { font-weight: 600; }
        .row .tag { font-size: 11px; padding: 0 5px; border-radius: 8px; background: #ddd; color: #333; }
        .row .tag.transaction { background: #f3d9fa; }
        .row .tag.move { background: #fde7c2; }
        .row .tag.committed { background: #d4f4dd; }
        .row.failed { background: #fff1f0; }
        .row.failed .id { color: #b3261e; }
        .row .tag.failed { background: #b3261e; color: #fff; }
        .row.open.failed { background: #b3261e; }
        .row.open.failed .id { color: #fff; }
        .row .summary { color: #666; overflow: hidden; text-overflow: ellipsis; }
        .row.open .summary { color: #eef; }
        .row .time { margin-left: auto; color: #888; font-size: 11px; }
        .row .arrow { color: #888; }
        .row.open .arrow { color: #dde; }
        .row.open .time { color: #dde; }
        #detail { overflow: auto; padding: 10px 14px; }
        #detail h2 { font-size: 15px; margin: 4px 0 8px; }
        #detail h3 { font-size: 13px; margin: 16px 0 6px; text-transform: uppercase; letter-spacing: .04em; color: #555; }
        pre { margin: 0; font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; white-space: pre-wrap; word-break: break-word; }
        .meta { color: #555; }
        .meta .failed { color: #b3261e; font-weight: 600; }
        pre.error { color: #b3261e; background: #fff1f0; padding: 6px 8px; border-left: 3px solid #b3261e; }
        table.diff { border-collapse: collapse; width: 100%; font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; }
        table.diff td, table.diff th { border: 1px solid #ddd; padding: 3px 6px; vertical-align: top; text-align: left; }
        table.diff td.path { white-space: nowrap; }
        tr.added td.path, tr.added td.new { background: #e6ffec; }
        tr.removed td.path, tr.removed td.old { background: #ffebe9; }
        tr.changed td.old { background: #fff5e5; }
        tr.changed td.new { background: #e6ffec; }
        .mark { font-weight: 700; width: 1em; }
        .tree details { margin-left: 14px; }
        .tree > details { margin-left: 0; }
        .tree summary { cursor: pointer; font: 12px/1.5 ui-monospace, Menlo, Consolas, monospace; }
        .tree .leaf { margin-left: 14px; font: 12px/1.5 ui-monospace, Menlo, Consolas, monospace; }
        .key { color: #881391; }
        .str { color: #1a1aa6; white-space: pre-wrap; }
        .num { color: #1c00cf; }
        .lit { color: #0b7a45; }
        .hint { color: #888; }
        .hl { background: #fff3a3; }
        .none { color: #888; padding: 10px; }
        </style>
        </head>
        <body>
        <header>
        <h1 id="title">Inspector</h1>
        <input id="filter" type="search" placeholder="Filter by action identifier" aria-label="Filter by action identifier">
        <input id="search" type="search" placeholder="Search payloads and state paths" aria-label="Search payloads and state paths">
        <span id="count"></span>
        </header>
        <main>
        <div id="timeline" tabindex="0" role="listbox" aria-label="Actions"><div id="rows"></div></div>
        <section id="detail" aria-live="polite"></section>
        </main>
        <script type="application/json" id="inspector-data">
        """#

    private static let tail = #"""
        </script>
        <script>
        "use strict";
        (function () {
          const data = JSON.parse(document.getElementById("inspector-data").textContent);
          const steps = data.steps, changes = data.changes, checkpoints = data.checkpoints;
          const ROW = 24;
          const el = (tag, cls, text) => {
            const node = document.createElement(tag);
            if (cls) node.className = cls;
            if (text !== undefined) node.textContent = text;
            return node;
          };
          const clone = (value) => (value !== null && typeof value === "object") ? structuredClone(value) : value;
          const stepOf = (n) => n === 0 ? null : steps[n - 1];
          const pathText = (path) => path.length === 0 ? "(state)" : path.join(".");
          const summaryOf = (payload) => {
            if (payload === undefined) return "";
            const text = JSON.stringify(payload);
            return text.length > 120 ? text.slice(0, 120) + "…" : text;
          };

          // Rows: step 0 (the starting state), then each step, a batch's actions under it.
          const rows = [{ step: 0, child: -1 }];
          for (let i = 0; i < steps.length; i++) {
            rows.push({ step: i + 1, child: -1 });
            const actions = steps[i].actions;
            if (actions) for (let j = 0; j < actions.length; j++) rows.push({ step: i + 1, child: j });
          }
          const firstRowOf = new Int32Array(steps.length + 1);
          for (let r = rows.length - 1; r >= 0; r--) if (rows[r].child < 0) firstRowOf[rows[r].step] = r;
          // Follow-ups: each is drawn one level under the step that dispatched it. Where the nearest
          // row above it drawn less indented is not that step (steps that link no cause came between,
          // the follow-ups of an action left out of the recording), `numbered` makes its arrow give
          // the cause's number. `shallower` holds the rows above, each less indented than the next.
          const depthOf = new Int32Array(steps.length + 1);
          const causeOf = new Int32Array(steps.length + 1);
          const numbered = new Uint8Array(steps.length + 1);
          const followUpsOf = new Map();
          const shallower = [0];
          for (let n = 1; n <= steps.length; n++) {
            const cause = steps[n - 1].cause;
            if (Number.isInteger(cause) && cause >= 1 && cause < n) {
              causeOf[n] = cause;
              depthOf[n] = depthOf[cause] + 1;
              if (!followUpsOf.has(cause)) followUpsOf.set(cause, []);
              followUpsOf.get(cause).push(n);
            }
            while (shallower.length > 0 && depthOf[shallower[shallower.length - 1]] >= depthOf[n]) shallower.pop();
            if (causeOf[n] && shallower[shallower.length - 1] !== causeOf[n]) numbered[n] = 1;
            shallower.push(n);
          }
          const indent = (n, base) => (base + 18 * Math.min(depthOf[n], 12)) + "px";

          document.getElementById("title").textContent = data.title;
          document.title = data.title + " — inspector";

          // The state at a step: the checkpoint before it, with the changes since applied.
          let cached = null;
          const applyChange = (root, change) => {
            const path = change.p;
            if (path.length === 0) return "n" in change ? clone(change.n) : null;
            let node = root;
            for (let i = 0; i < path.length - 1; i++) node = node[Array.isArray(node) ? Number(path[i]) : path[i]];
            const last = path[path.length - 1];
            if ("n" in change) {
              node[Array.isArray(node) ? Number(last) : last] = clone(change.n);
            } else if (Array.isArray(node)) {
              const index = Number(last);
              if (index < node.length) node.length = index;
            } else {
              delete node[last];
            }
            return root;
          };
          const stateAt = (n) => {
            let base = 0;
            for (let lo = 0, hi = checkpoints.length - 1; lo <= hi;) {
              const mid = (lo + hi) >> 1;
              if (checkpoints[mid][0] <= n) { base = mid; lo = mid + 1; } else hi = mid - 1;
            }
            const [from, state] = checkpoints[base];
            if (!cached || cached.step > n || cached.step < from) cached = { step: from, state: clone(state) };
            while (cached.step < n) {
              for (const change of changes[cached.step]) cached.state = applyChange(cached.state, change);
              cached.step++;
            }
            return cached.state;
          };

          // Filtering and searching.
          const filterInput = document.getElementById("filter");
          const searchInput = document.getElementById("search");
          let searchTexts = null;
          const searchTextOf = (n) => {
            if (!searchTexts) searchTexts = new Array(steps.length + 1);
            let text = searchTexts[n];
            if (text === undefined) {
              const step = stepOf(n);
              const parts = [];
              if (step) {
                if (step.payload !== undefined) parts.push(JSON.stringify(step.payload));
                if (step.actions) for (const action of step.actions) parts.push(JSON.stringify(action.payload));
                if (step.failed) parts.push(step.error);
                for (const change of changes[n - 1]) parts.push(pathText(change.p));
              }
              text = searchTexts[n] = parts.join("\n").toLowerCase();
            }
            return text;
          };
          const idMatches = (row, filter) => {
            const step = stepOf(row.step);
            if (!step) return "initial state".includes(filter);
            if (row.child >= 0) return step.actions[row.child].id.toLowerCase().includes(filter);
            if (step.id.toLowerCase().includes(filter)) return true;
            return !!step.actions && step.actions.some((action) => action.id.toLowerCase().includes(filter));
          };
          let visible = null;  // row indices shown; null while nothing filters
          const applyFilter = () => {
            const filter = filterInput.value.trim().toLowerCase();
            const search = searchInput.value.trim().toLowerCase();
            if (!filter && !search) {
              visible = null;
            } else {
              visible = [];
              for (let r = 0; r < rows.length; r++) {
                const row = rows[r];
                if (filter && !idMatches(row, filter)) continue;
                if (search && !searchTextOf(row.step).includes(search)) continue;
                visible.push(r);
              }
            }
            cursor = Math.min(cursor, shownCount() - 1);
            const opened = visibleIndexOfStep(openStep);
            if (opened >= 0) cursor = opened;
            render();
          };
          const shownCount = () => visible ? visible.length : rows.length;
          const rowAt = (i) => visible ? visible[i] : i;
          const visibleIndexOfStep = (n) => {
            const r = firstRowOf[n];
            if (!visible) return r;
            let lo = 0, hi = visible.length - 1;
            while (lo <= hi) {
              const mid = (lo + hi) >> 1;
              if (visible[mid] === r) return mid;
              if (visible[mid] < r) lo = mid + 1; else hi = mid - 1;
            }
            return -1;
          };

          // The timeline, drawing only the rows in view.
          const timeline = document.getElementById("timeline");
          const rowsBox = document.getElementById("rows");
          const count = document.getElementById("count");
          let cursor = 0, openStep = 0;
          const makeRow = (i) => {
            const r = rowAt(i), row = rows[r], step = stepOf(row.step);
            const node = el("div", "row");
            node.style.top = (i * ROW) + "px";
            node.dataset.row = String(i);
            node.dataset.step = String(row.step);
            node.setAttribute("role", "option");
            if (row.step > 0 && depthOf[row.step] > 0) {
              node.dataset.depth = String(depthOf[row.step]);
              node.style.paddingLeft = indent(row.step, row.child >= 0 ? 32 : 8);
            }
            if (row.child >= 0) {
              const action = step.actions[row.child];
              node.classList.add("child");
              if (step.failed) node.classList.add("failed");
              node.append(el("span", "id", action.id), el("span", "summary", summaryOf(action.payload)));
            } else if (!step) {
              node.append(el("span", "n", "0"), el("span", "id", "Initial state"));
            } else {
              node.append(el("span", "n", String(row.step)));
              if (depthOf[row.step] > 0) {
                node.classList.add("followup");
                node.title = "dispatched by step " + causeOf[row.step];
                node.append(el("span", "arrow", numbered[row.step] ? "↳ " + causeOf[row.step] : "↳"));
              }
              node.append(el("span", "id", step.id));
              if (step.kind !== "action") node.append(el("span", "tag " + step.kind, step.kind === "batch" ? "batch of " + step.actions.length : step.kind === "transaction" ? "transaction of " + step.actions.length : "history"));
              if (step.failed) {
                node.classList.add("failed");
                node.append(el("span", "tag failed", "✕ failed"));
              } else {
                node.append(el("span", "tag committed", "committed"));
              }
              node.append(el("span", "summary", summaryOf(step.payload)));
              if (step.time) node.append(el("span", "time", step.time.replace(/^.*T/, "").replace(/Z$/, "")));
            }
            if (i === cursor) node.classList.add("cursor");
            if (row.step === openStep && row.child < 0) { node.classList.add("open"); node.setAttribute("aria-selected", "true"); }
            return node;
          };
          const render = () => {
            const total = shownCount();
            rowsBox.style.height = (total * ROW) + "px";
            const first = Math.max(0, Math.floor(timeline.scrollTop / ROW) - 5);
            const last = Math.min(total, Math.ceil((timeline.scrollTop + timeline.clientHeight) / ROW) + 5);
            const nodes = [];
            for (let i = first; i < last; i++) nodes.push(makeRow(i));
            rowsBox.replaceChildren(...nodes);
            count.textContent = (visible ? visible.length + " of " : "") + rows.length + " rows, " + steps.length + " steps";
          };
          timeline.addEventListener("scroll", () => requestAnimationFrame(render));
          window.addEventListener("resize", render);
          const scrollToCursor = () => {
            const top = cursor * ROW;
            if (top < timeline.scrollTop) timeline.scrollTop = top;
            else if (top + ROW > timeline.scrollTop + timeline.clientHeight) timeline.scrollTop = top + ROW - timeline.clientHeight;
          };

          // The detail of a step: the action, what it changed, the state after it.
          const detail = document.getElementById("detail");
          const valueText = (value) => JSON.stringify(value, null, 2);
          const treeNode = (key, value, open) => {
            const keyNode = key === null ? null : el("span", "key", key + ": ");
            if (value !== null && typeof value === "object") {
              const isArray = Array.isArray(value);
              const keys = isArray ? null : Object.keys(value);
              const size = isArray ? value.length : keys.length;
              const details = el("details");
              const summary = el("summary");
              if (keyNode) summary.append(keyNode);
              summary.append(el("span", "hint", isArray ? "[" + size + " items]" : "{" + size + " members}"));
              details.append(summary);
              let shown = 0;
              const more = el("button", "more");
              const showMore = () => {
                const end = Math.min(size, shown + 500);
                const nodes = [];
                for (; shown < end; shown++) {
                  const childKey = isArray ? String(shown) : keys[shown];
                  nodes.push(treeNode(childKey, value[childKey], false));
                }
                more.before(...nodes);
                if (shown < size) more.textContent = "show " + Math.min(500, size - shown) + " more of " + (size - shown); else more.remove();
              };
              more.addEventListener("click", showMore);
              details.addEventListener("toggle", () => { if (details.open && shown === 0 && size > 0) { details.append(more); showMore(); } });
              if (open) details.open = true;
              return details;
            }
            const leaf = el("div", "leaf");
            if (keyNode) leaf.append(keyNode);
            const cls = typeof value === "string" ? "str" : typeof value === "number" ? "num" : "lit";
            leaf.append(el("span", cls, JSON.stringify(value)));
            return leaf;
          };
          const showStep = (n) => {
            const step = stepOf(n);
            const nodes = [];
            nodes.push(el("h2", null, n === 0 ? "Step 0 · Initial state" : "Step " + n + " · " + step.id));
            if (step) {
              const meta = el("div", "meta", "type " + step.type + " · " + step.kind + " · ");
              meta.append(step.failed ? el("span", "failed", "failed") : "committed", " · line " + step.line + (step.time ? " · " + step.time : ""));
              nodes.push(meta);
              const stepLink = (m) => {
                const link = el("a", null, "step " + m + " · " + steps[m - 1].id);
                link.href = "#step=" + m;
                return link;
              };
              if (depthOf[n] > 0) {
                const cause = el("div", "meta cause", "Dispatched by ");
                cause.append(stepLink(causeOf[n]));
                nodes.push(cause);
              }
              const followUps = followUpsOf.get(n);
              if (followUps) {
                const list = el("div", "meta followups", "Dispatched " + followUps.length + (followUps.length === 1 ? " follow-up: " : " follow-ups: "));
                followUps.slice(0, 50).forEach((m, i) => { if (i > 0) list.append(", "); list.append(stepLink(m)); });
                if (followUps.length > 50) list.append(", …");
                nodes.push(list);
              }
              if (step.failed) {
                nodes.push(el("h3", null, "Error"));
                nodes.push(el("pre", "error", step.error));
              }
              nodes.push(el("h3", null, step.actions ? "Actions" : "Payload"));
              if (step.actions) {
                for (const action of step.actions) {
                  nodes.push(el("div", "meta", action.id + " (" + action.type + ")"));
                  nodes.push(el("pre", "payload", valueText(action.payload)));
                }
              } else {
                nodes.push(el("pre", "payload", valueText(step.payload)));
              }
              const stepChanges = changes[n - 1];
              nodes.push(el("h3", null, "Changes (" + stepChanges.length + ")"));
              if (stepChanges.length === 0) {
                nodes.push(el("div", "none", step.failed ? "No change to the state: the action failed." : "No change to the state."));
              } else {
                const table = el("table", "diff");
                const head = el("tr");
                head.append(el("th", null, ""), el("th", null, "Path"), el("th", null, "Old"), el("th", null, "New"));
                table.append(head);
                const limit = Math.min(stepChanges.length, 1000);
                for (let i = 0; i < limit; i++) {
                  const change = stepChanges[i];
                  const kind = !("o" in change) ? "added" : !("n" in change) ? "removed" : "changed";
                  const tr = el("tr", kind);
                  tr.dataset.path = pathText(change.p);
                  tr.append(el("td", "mark", kind === "added" ? "+" : kind === "removed" ? "−" : "~"), el("td", "path", pathText(change.p)));
                  const oldCell = el("td", "old"), newCell = el("td", "new");
                  if ("o" in change) oldCell.append(el("pre", null, valueText(change.o)));
                  if ("n" in change) newCell.append(el("pre", null, valueText(change.n)));
                  tr.append(oldCell, newCell);
                  table.append(tr);
                }
                nodes.push(table);
                if (limit < stepChanges.length) nodes.push(el("div", "hint", (stepChanges.length - limit) + " more changes not shown"));
              }
            }
            nodes.push(el("h3", null, step && step.failed ? "State (as before the failed action)" : "State after"));
            const tree = el("div", "tree");
            tree.append(treeNode(null, stateAt(n), true));
            nodes.push(tree);
            detail.replaceChildren(...nodes);
          };

          const open = (n, fromHash) => {
            if (!(n >= 0 && n <= steps.length)) return;
            openStep = n;
            const index = visibleIndexOfStep(n);
            if (index >= 0) { cursor = index; scrollToCursor(); }
            showStep(n);
            render();
            if (!fromHash) history.replaceState(null, "", "#step=" + n);
          };
          const stepFromHash = () => {
            const match = /^#step=(\d+)$/.exec(location.hash);
            return match ? Number(match[1]) : null;
          };

          rowsBox.addEventListener("click", (event) => {
            const node = event.target.closest(".row");
            if (!node) return;
            cursor = Number(node.dataset.row);
            timeline.focus();
            open(Number(node.dataset.step), false);
          });
          timeline.addEventListener("keydown", (event) => {
            if (event.key === "ArrowDown" || event.key === "ArrowUp") {
              const total = shownCount();
              if (total === 0) return;
              cursor = Math.max(0, Math.min(total - 1, cursor + (event.key === "ArrowDown" ? 1 : -1)));
              scrollToCursor();
              render();
              event.preventDefault();
            } else if (event.key === "Enter") {
              if (shownCount() === 0) return;
              const index = cursor;
              open(rows[rowAt(index)].step, false);
              cursor = index;
              render();
              event.preventDefault();
            }
          });
          filterInput.addEventListener("input", applyFilter);
          searchInput.addEventListener("input", applyFilter);
          window.addEventListener("hashchange", () => { const n = stepFromHash(); if (n !== null) open(n, true); });

          const initial = stepFromHash();
          open(initial !== null && initial <= steps.length ? initial : 0, true);
          timeline.focus();
          document.body.dataset.readyAt = String(Math.round(performance.now()));
          document.body.dataset.ready = "true";
        })();
        </script>
        </body>
        </html>

        """#
}
