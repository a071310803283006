import Foundation

/// The dashboard's page: one file, inline style and script, charts drawn as inline SVG; nothing is
/// fetched from another origin.
enum DashboardPage {
    /// The page, carrying this run's `token` for its state changes (a UUID: nothing to escape).
    static func html(token: String) -> String {
        template.replacingOccurrences(of: "__MIB_TOKEN__", with: token)
    }

    private static let template = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>mib cache dashboard</title>
        <style>
          body { font: 14px system-ui, sans-serif; margin: 24px; color: #1d2330; background: #f7f8fa; }
          h1 { font-size: 20px; margin: 0 0 16px; }
          h2 { font-size: 15px; margin: 24px 0 8px; }
          section { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 12px 16px; margin-bottom: 16px; }
          table { border-collapse: collapse; width: 100%; }
          th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eef0f4; font-variant-numeric: tabular-nums; }
          th { color: #5a6376; font-weight: 600; }
          .firing { color: #b3261e; font-weight: 700; }
          .quiet { color: #1e7a3c; font-weight: 700; }
          .grid { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
          button { font: inherit; padding: 2px 10px; }
          input { font: inherit; padding: 4px 8px; width: 320px; }
          svg { background: #fbfcfd; border: 1px solid #eef0f4; }
          .legend span { margin-right: 16px; }
        </style>
        </head>
        <body>
        <h1>Cache dashboard <small id="updated"></small></h1>
        <div class="grid">
          <section>
            <h2>Offline data</h2>
            <table id="offline"><thead><tr><th>data</th><th>records</th><th>bytes</th></tr></thead><tbody></tbody></table>
          </section>
          <section>
            <h2>Syncs</h2>
            <table id="syncs"><thead><tr><th>sync</th><th>now</th><th>last completed</th><th>last run</th></tr></thead><tbody></tbody></table>
          </section>
        </div>
        <section>
          <h2>Stores</h2>
          <table id="stores"><thead><tr><th>participant</th><th>store</th><th>entries</th><th>bytes</th><th>hit rate</th><th></th></tr></thead><tbody></tbody></table>
        </section>
        <div class="grid">
          <section>
            <h2>Time to interactive (ms)</h2>
            <table id="tti"><thead><tr><th>source</th><th>p50</th><th>p90</th><th>p99</th><th>screens</th></tr></thead><tbody></tbody></table>
            <svg id="tti-chart" width="100%" viewBox="0 0 600 170"></svg>
            <div class="legend"><span style="color:#2563eb">&#9632; cache p50</span><span style="color:#d97706">&#9632; network p50</span></div>
          </section>
          <section>
            <h2>Errors</h2>
            <p id="errors"></p>
            <svg id="error-chart" width="100%" viewBox="0 0 600 170"></svg>
            <h2>Funnel</h2>
            <p id="funnel"></p>
          </section>
        </div>
        <section>
          <h2>Entries <input id="search" type="search" placeholder="search participant, store or key"></h2>
          <table id="entries"><thead><tr><th>participant</th><th>store</th><th>key</th><th>user</th><th>account</th><th>bytes</th></tr></thead><tbody></tbody></table>
        </section>
        <script>
        "use strict";
        const text = (value) => document.createTextNode(String(value));
        function row(cells) {
          const tr = document.createElement("tr");
          for (const cell of cells) {
            const td = document.createElement("td");
            td.appendChild(cell instanceof Node ? cell : text(cell));
            tr.appendChild(td);
          }
          return tr;
        }
        function fill(id, rows) {
          const body = document.querySelector("#" + id + " tbody");
          body.replaceChildren(...rows);
        }
        const svgNS = "http://www.w3.org/2000/svg";
        // The plot area: x from 50 to 590, y from 10 (the largest value) to 140 (zero); axis labels around it.
        function line(points, color, maxY, start, span) {
          const polyline = document.createElementNS(svgNS, "polyline");
          polyline.setAttribute("points", points.map(([x, y]) =>
            (50 + ((x - start) / (span || 1)) * 540).toFixed(1) + "," + (140 - (y / (maxY || 1)) * 130).toFixed(1)).join(" "));
          polyline.setAttribute("fill", "none");
          polyline.setAttribute("stroke", color);
          polyline.setAttribute("stroke-width", "2");
          polyline.setAttribute("class", "series");
          return polyline;
        }
        function label(x, y, value, anchor) {
          const node = document.createElementNS(svgNS, "text");
          node.setAttribute("x", x);
          node.setAttribute("y", y);
          node.setAttribute("text-anchor", anchor);
          node.setAttribute("font-size", "11");
          node.setAttribute("fill", "#5a6376");
          node.setAttribute("class", "axis-label");
          node.textContent = value;
          return node;
        }
        function axis(x1, y1, x2, y2) {
          const node = document.createElementNS(svgNS, "line");
          for (const [key, value] of Object.entries({ x1, y1, x2, y2 })) node.setAttribute(key, value);
          node.setAttribute("stroke", "#c5cad3");
          return node;
        }
        // A chart with its values on its axes: the largest value and zero on the left (in `unit`), the
        // first and last sample's time (seconds since the dashboard started) below.
        function chart(id, series, unit) {
          const svg = document.getElementById(id);
          const all = series.flatMap((s) => s.points);
          const maxY = Math.max(1, ...all.map((p) => p[1]));
          const start = all.length ? Math.min(...all.map((p) => p[0])) : 0;
          const end = all.length ? Math.max(...all.map((p) => p[0])) : 0;
          const round = (value) => (value >= 10 ? value.toFixed(0) : value.toFixed(1));
          svg.replaceChildren(
            axis(50, 10, 50, 140), axis(50, 140, 590, 140),
            label(45, 14, round(maxY) + " " + unit, "end"), label(45, 140, "0", "end"),
            label(50, 158, start.toFixed(0) + " s", "start"), label(590, 158, end.toFixed(0) + " s", "end"),
            ...series.filter((s) => s.points.length).map((s) => line(s.points, s.color, maxY, start, end - start)));
        }
        async function clearParticipant(name) {
          await fetch("/api/clear?participant=" + encodeURIComponent(name), { method: "POST", headers: { "X-MIB-Token": "__MIB_TOKEN__" } });
          refresh();
        }
        async function refresh() {
          const q = document.getElementById("search").value;
          const response = await fetch("/api/state?q=" + encodeURIComponent(q));
          const state = await response.json();
          const seen = new Set();
          fill("stores", state.stores.map((s) => {
            let button = "";
            if (!seen.has(s.participant)) {
              seen.add(s.participant);
              button = document.createElement("button");
              button.textContent = "clear " + s.participant;
              button.addEventListener("click", () => clearParticipant(s.participant));
            }
            return row([s.participant, s.store, s.entries, s.bytes, (s.hitRate * 100).toFixed(0) + "%", button]);
          }));
          fill("tti", Object.entries(state.timeToInteractive).sort().map(([source, p]) => row([source, p.p50, p.p90, p.p99, p.count])));
          chart("tti-chart", [
            { color: "#2563eb", points: state.history.filter((h) => h.timeToInteractive.cache !== undefined).map((h) => [h.second, h.timeToInteractive.cache]) },
            { color: "#d97706", points: state.history.filter((h) => h.timeToInteractive.network !== undefined).map((h) => [h.second, h.timeToInteractive.network]) },
          ], "ms");
          chart("error-chart", [{ color: "#b3261e", points: state.history.map((h) => [h.second, h.errorRate * 100]) }], "%");
          const held = (participant) => state.stores.filter((s) => s.participant === participant)
            .reduce((sum, s) => [sum[0] + s.entries, sum[1] + s.bytes], [0, 0]);
          fill("offline", [["address book", held("contacts")], ["photo cache", held("images")], ["chat history", held("chat-history")]]
            .map(([name, [records, bytes]]) => row([name, records, bytes])));
          fill("syncs", state.syncs.map((s) => row([
            s.name, s.activity + (s.firstSyncFinished ? "" : " (first sync not finished)"),
            s.lastCompletedAt ? new Date(s.lastCompletedAt).toLocaleString() : "never",
            s.lastOutcome ? s.lastMode + ", " + s.lastPages + (s.lastPages === 1 ? " page, " : " pages, ") + s.lastItems + " records: "
              + s.lastOutcome + " in " + s.lastMilliseconds + " ms" : "none yet"])));
          const errors = document.getElementById("errors");
          const status = document.createElement("span");
          status.id = "alert";
          status.className = state.errors.alertFiring ? "firing" : "quiet";
          status.textContent = state.errors.alertFiring ? "ALERT: error rate above 5%" : "no alert";
          errors.replaceChildren(text((state.errors.rate * 100).toFixed(1) + "% of " + state.errors.requests + " requests failed in the last 5 minutes · "), status);
          document.getElementById("funnel").textContent = ["login", "catalog", "detail", "payment"].map((s) => s + " " + (state.funnel[s] || 0)).join(" → ");
          fill("entries", state.entries.map((e) => row([e.participant, e.store, e.key, e.user || "", e.account || "", e.bytes])));
          document.getElementById("updated").textContent = "· " + new Date().toLocaleTimeString();
        }
        document.getElementById("search").addEventListener("input", refresh);
        refresh();
        setInterval(refresh, 1000);
        </script>
        </body>
        </html>
        """#
}
