"""The HTML report's stylesheet: one CSS string, inlined in the page's ``<style>``.

Inline because the page is self-contained: its Content-Security-Policy lets it load nothing.
"""

_CSS = """
:root{--ok:#1b7f3b;--okbg:#e3f4e8;--bad:#c62828;--badbg:#fde4e4;--warn:#a15c00;--warnbg:#fff1d6;
--mute:#667085;--line:#d0d5dd;--sel:#1b9e4b;--selbg:#c8f0d4}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2939;margin:0;
background:#f8f9fb}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
h3{font-size:15px;margin:0 0 4px;display:flex;gap:8px;flex-wrap:wrap;align-items:baseline}
.card{background:#fff;border:1px solid var(--line);border-radius:8px;padding:16px;margin:12px 0}
.decision{display:inline-block;font-weight:700;padding:2px 10px;border-radius:12px;font-size:14px}
.decision.verified{background:var(--okbg);color:var(--ok)}
.decision.fallback{background:var(--warnbg);color:var(--warn)}
.reason{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px;margin-top:6px}
.query{font-size:17px;margin:8px 0}
.stats{display:flex;flex-wrap:wrap;gap:8px 24px;margin-top:8px;font-size:14px}
.stats b{font-variant-numeric:tabular-nums}
.muted{color:var(--mute);font-size:13px;margin:4px 0}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;font-size:13px;margin:6px 0}
.legend span{display:inline-flex;align-items:center;gap:6px}
.sw{display:inline-block;width:14px;height:14px;border-radius:50%;border:2px solid #344054}
.sw.sel{background:var(--sel);border-color:#0b4f23}.sw.rej{background:#f3a6a6;border-color:var(--bad)}
.sw.uns{background:#e4e7ec;border-color:#98a2b3}
.sw.nc{background:none;border:1px dotted var(--mute);border-radius:2px}
.ln{display:inline-block;width:22px;height:0;border-top:3px solid}
.ln.c{border-color:var(--bad)}.ln.s{border-color:#5cb176}
svg.graph{display:block;max-width:100%;height:auto;margin:0 auto}
svg .ring{fill:none;stroke:#eaecf0;stroke-width:1}
svg .es{fill:none;stroke:#5cb176;stroke-opacity:.55}
svg .ec{fill:none;stroke:#d92d20;stroke-opacity:.85}
svg .n circle{stroke-width:2}
svg .n text{text-anchor:middle;font-family:system-ui,sans-serif;fill:#101828;pointer-events:none}
svg .n.sel circle{fill:var(--sel);stroke:#0b4f23;stroke-width:3.5}
svg .n.sel text{fill:#fff;font-weight:700}
svg .n.rej circle{fill:#f3a6a6;stroke:var(--bad)}
svg .n.uns circle{fill:#e4e7ec;stroke:#98a2b3}
svg .pl{font-size:12px;fill:#344054;font-family:system-ui,sans-serif}
.passage{background:#fff;border:1px solid var(--line);border-radius:8px;padding:12px 16px;margin:10px 0}
.pid{font-family:ui-monospace,Menlo,monospace;font-weight:700;color:#344054}
.src{word-break:break-all}.dom{color:var(--mute);font-size:12px;border:1px solid var(--line);
border-radius:10px;padding:0 8px}
.dom.planted{color:var(--bad);border-color:var(--bad)}
.text{margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere}
mark{border-radius:3px;padding:1px 2px;color:inherit}
mark.sel{background:var(--selbg);box-shadow:inset 0 -2px 0 var(--sel)}
mark.rej{background:var(--badbg);text-decoration:line-through;text-decoration-color:var(--bad);
box-shadow:inset 0 -2px 0 var(--bad)}
mark.uns{background:#f2f4f7}
mark.nc{background:none;color:var(--mute);border-bottom:1px dotted var(--mute);border-radius:0}
mark:target{outline:2px solid #2e90fa}
sup.ci{font-size:10px;color:var(--mute);margin-right:2px;font-family:ui-monospace,monospace}
table{border-collapse:collapse;width:100%;background:#fff;font-size:14px}
th,td{border:1px solid var(--line);padding:6px 8px;vertical-align:top;text-align:left}
th{background:#f2f4f7}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.tag{font-family:ui-monospace,monospace;text-decoration:none;color:inherit;border-radius:3px;padding:0 3px}
.tag.sel{background:var(--selbg)}.tag.rej{background:var(--badbg)}.tag.uns{background:#f2f4f7}
details{margin:8px 0}summary{cursor:pointer;color:#344054}
code{font-family:ui-monospace,Menlo,monospace;font-size:13px}
.warn{background:var(--warnbg);border:1px solid #f5c26b;border-radius:6px;padding:6px 10px;margin:6px 0}
footer{color:var(--mute);font-size:12px;margin:28px 0 8px}
@media print{body{background:#fff}.card,.passage{break-inside:avoid}}
"""
