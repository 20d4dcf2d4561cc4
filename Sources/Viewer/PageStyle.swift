/// The page's style sheet and static markup. Every piece of trace data reaches the page
/// through the embedded JSON and the script's `textContent`, never through this markup.
enum PageStyle {
    static let css = #"""
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1d1d1f; --muted: #6e6e73; --line: #c7c7cc;
  --stripe: #f4f4f6; --panel: #fafafa; --accent: #e8590c; --focus: #fff3bf; --failed: #d7263d; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #1c1c1e; --fg: #f2f2f7; --muted: #a1a1a6; --line: #48484a; --stripe: #242426;
    --panel: #232325; --accent: #ff922b; --focus: #3d3413; --failed: #ff5c6c; }
}
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--fg);
  font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; }
body { display: grid; grid-template-rows: auto 1fr; grid-template-columns: 1fr 340px; height: 100vh; }
header { grid-column: 1 / 3; display: flex; gap: 12px; align-items: center; padding: 6px 10px;
  border-bottom: 1px solid var(--line); flex-wrap: wrap; }
header h1 { font-size: 15px; margin: 0; font-weight: 600; }
header input { font: inherit; padding: 3px 6px; width: 260px; }
header .hint { color: var(--muted); }
#lanes { position: relative; overflow-y: auto; overflow-x: hidden; min-height: 0; }
#view { display: block; outline: none; cursor: grab; }
#view:focus-visible { box-shadow: inset 0 0 0 2px var(--accent); }
aside { border-left: 1px solid var(--line); background: var(--panel); overflow-y: auto; overflow-x: hidden; padding: 8px 10px; min-height: 0; }
aside h2 { font-size: 13px; margin: 10px 0 4px; }
aside dl { display: grid; grid-template-columns: auto 1fr; gap: 2px 8px; margin: 0; }
aside dt { color: var(--muted); }
aside dd { margin: 0; overflow-wrap: anywhere; }
aside pre { margin: 4px 0; padding: 4px; background: var(--bg); border: 1px solid var(--line);
  white-space: pre-wrap; overflow-wrap: anywhere; max-height: 240px; overflow-y: auto; }
aside ol, aside ul { margin: 0; padding-left: 18px; }
aside button { vertical-align: top; font: inherit; text-align: left; background: none; border: none; color: inherit; padding: 1px 0;
  cursor: pointer; text-decoration: underline dotted; }
aside button:focus-visible { outline: 2px solid var(--accent); }
.count { color: var(--muted); }
table { border-collapse: collapse; font-size: 12px; width: 100%; }
#lane-table tbody tr { cursor: pointer; }
#lane-table { table-layout: fixed; }
#lane-table th:nth-child(2) { width: 3.5em; }
#lane-table th:nth-child(3) { width: 4.6em; }
#lane-table th:nth-child(4) { width: 30%; }
#lane-table td { overflow-wrap: break-word; }
#pipeline { overflow: auto; max-height: 50vh; border: 1px solid var(--line); background: #ffffff; }
#pipeline { max-height: 60vh; }
#pipeline svg { display: block; max-width: none; }
#pipeline.fit svg { width: 100% !important; height: auto !important; }
#pipeline g.node { cursor: pointer; }
#pipeline g.node:focus { outline: none; }
#pipeline g.node.current ellipse, #pipeline g.node.current path, #pipeline g.node.current polygon,
#pipeline g.node:focus-visible ellipse, #pipeline g.node:focus-visible path, #pipeline g.node:focus-visible polygon {
  stroke: #e8590c; stroke-width: 4; }
td, th { padding: 1px 6px; border-bottom: 1px solid var(--line); text-align: left; }
@media print {
  body { display: block; height: auto; }
  header input, header .hint { display: none; }
  aside { border: none; }
}
"""#

    /// The markup before the data: header with search, the lanes' canvas, the side panel.
    /// `title` is already escaped.
    static func body(title: String) -> String {
        """
        <body>
        <header>
        <h1>\(title)</h1>
        <input id="search" type="search" placeholder="Search label, value, node, thread" aria-label="Search events and lanes">
        <span id="matches" class="count" aria-live="polite"></span>
        <span class="hint">wheel or +/− zoom · drag or ←/→ pan · 0 whole run · click an event for its causes</span>
        </header>
        <div id="lanes"><canvas id="view" tabindex="0" aria-label="Lanes of events; use the keys to zoom and pan"></canvas></div>
        <aside>
        <section id="event" aria-live="polite"><h2>Event</h2><p class="count">Click an event (or Tab to the lanes and press Enter on a search result).</p></section>
        <section id="results" hidden><h2>Search results</h2><ol id="result-list"></ol></section>
        <section id="differences" hidden><h2>Differences</h2><ol id="diff-list"></ol></section>
        <section id="pipeline-section" hidden><h2>Pipeline <label class="count"><input id="pipeline-size" type="checkbox"> whole figure</label></h2>
        <div id="pipeline" aria-label="The pipeline: select a node to scroll to its lane; its statistics show on hover"></div></section>
        <section><h2>Lanes</h2><table id="lane-table"><thead><tr><th>lane</th><th>node</th><th>values</th><th>ends</th></tr></thead><tbody></tbody></table></section>
        </aside>

        """
    }
}
