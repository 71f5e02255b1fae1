package export

import (
	"crypto/sha256"
	"encoding/base64"
)

// pageCSS styles the page: light and dark by prefers-color-scheme, the tree
// beside the conversation on a wide screen and above it on a phone.
const pageCSS = `
:root{--bg:#fff;--fg:#1f2328;--dim:#656d76;--line:#d0d7de;--card:#f6f8fa;--user:#ddf4ff;--accent:#0969da;--path:#8250df;--err:#cf222e;--code:#eff1f3}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--dim:#8d96a0;--line:#30363d;--card:#161b22;--user:#0c2d48;--accent:#4493f8;--path:#ab7df8;--err:#f85149;--code:#1f242c}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,"Noto Sans",sans-serif}
header.top{padding:12px 16px;border-bottom:1px solid var(--line)}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:15px;margin:0 0 8px;color:var(--dim);font-weight:600}
.meta{display:flex;flex-wrap:wrap;gap:2px 16px;margin:0;color:var(--dim);font-size:13px}
.meta dt{display:inline;font-weight:600}.meta dd{display:inline;margin:0 0 0 4px;word-break:break-all}
.tools{margin-top:6px}
button{font:inherit;font-size:13px;color:var(--fg);background:var(--card);border:1px solid var(--line);border-radius:6px;padding:2px 10px;cursor:pointer}
.layout{display:grid;grid-template-columns:minmax(260px,30%) 1fr;align-items:start}
nav.tree{position:sticky;top:0;max-height:100vh;overflow:auto;padding:12px 8px 12px 16px;border-right:1px solid var(--line);font-size:13px}
main{padding:12px 16px;min-width:0}
@media (max-width:900px){.layout{display:block}nav.tree{position:static;max-height:40vh;border-right:0;border-bottom:1px solid var(--line)}}
ul.run,ul.branches{list-style:none;margin:0;padding:0}
ul.branches{padding-left:12px;border-left:1px dashed var(--line);margin-left:4px}
li.branch+li.branch{border-top:1px dotted var(--line);margin-top:2px;padding-top:2px}
li.node{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;color:var(--dim)}
li.node a{color:inherit;text-decoration:none}
li.node a:hover{text-decoration:underline}
a:focus-visible,button:focus-visible,summary:focus-visible{outline:2px solid var(--accent);outline-offset:-2px;border-radius:3px}
li.on-path{color:var(--fg)}li.on-path::before{content:"● ";color:var(--path)}
li.leaf{font-weight:700}
.badge{display:inline-block;font-size:11px;padding:0 6px;border-radius:10px;border:1px solid var(--line);color:var(--dim);margin-left:4px;font-weight:400}
.badge.label{border-color:var(--accent);color:var(--accent)}
.badge.leaf{border-color:var(--path);color:var(--path)}
.turn{border:1px solid var(--line);border-radius:8px;margin:0 0 10px;padding:8px 12px;background:var(--bg)}
.turn.user{background:var(--user)}
.turn.event{border-style:dashed;padding:4px 12px;color:var(--dim);font-size:13px}
.turn.summary{background:var(--card)}
.turn.leaf{border-color:var(--path);box-shadow:0 0 0 1px var(--path)}
.head{display:flex;flex-wrap:wrap;gap:2px 10px;font-size:13px;color:var(--dim);margin-bottom:4px}
.head .role{font-weight:700;color:var(--fg)}
.head a{color:inherit}
.usage{font-variant-numeric:tabular-nums}
.md{overflow-wrap:anywhere}.md>:first-child{margin-top:0}.md>:last-child{margin-bottom:0}
.md table{border-collapse:collapse}.md td,.md th{border:1px solid var(--line);padding:2px 6px}
pre,code{font:12.5px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border-radius:6px}
code{padding:1px 4px}pre{padding:8px;overflow:auto;max-height:32em;white-space:pre-wrap;overflow-wrap:anywhere}pre code{padding:0;background:none}
details{margin:4px 0}summary{cursor:pointer;color:var(--dim);font-size:13px}
details.tool>summary,details.result>summary{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.error{color:var(--err)}
img.inline{max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px;display:block;margin:4px 0}
`

// pageJS is the page's only script. It expands or collapses every block
// (the buttons with data-act), and it shows the path through the entry a
// reader picks in the tree: every card names its parent's card
// (data-parent), every link of the tree the card of the leaf its path
// goes to (data-leaf); the cards on that leaf's path are shown, the others
// hidden. A link whose card is on the path shown only scrolls to it; the
// link is followed either way, so the browser scrolls to the card and
// focus and history work as for any link. A page opened at #e-N shows
// that entry's path. Without the script the path to the file's leaf is
// shown. It holds no "<", so every "<" of the page starts a tag (the tests
// rely on it).
const pageJS = `(function(){var d=document;` +
	`function path(id){var on={},n=d.getElementById(id);while(n&&!on[n.id]){on[n.id]=1;n=d.getElementById(n.getAttribute("data-parent")||"")}return on}` +
	`function show(leaf){var on=path(leaf),s=d.querySelectorAll("main section.turn"),a=d.querySelectorAll("nav a[data-leaf]"),i;` +
	`for(i=s.length;i--;){s[i].hidden=!on[s[i].id];s[i].classList.toggle("leaf",s[i].id===leaf)}` +
	`for(i=a.length;i--;){var id=a[i].getAttribute("href").slice(1),li=a[i].parentNode;li.classList.toggle("on-path",!!on[id]);li.classList.toggle("leaf",id===leaf);` +
	`if(on[id])for(var f=li.parentNode;f&&f.tagName!=="NAV";f=f.parentNode)if(f.tagName==="DETAILS")f.open=true}}` +
	`function pick(id){var c=d.getElementById(id),a=d.querySelector('nav a[href="#'+id+'"]');if(c&&c.hidden&&a)show(a.getAttribute("data-leaf"))}` +
	`d.addEventListener("click",function(e){var t=e.target,act=t&&t.getAttribute&&t.getAttribute("data-act");` +
	`if(act){var b=d.querySelectorAll("main details");for(var i=b.length;i--;)b[i].open=(act==="open");return}` +
	`var a=t&&t.closest&&t.closest("a[href]"),h=a&&a.getAttribute("href");` +
	`if(h==="#leaf"){var l=d.getElementById("leaf");if(l&&l.nextElementSibling)show(l.nextElementSibling.id)}` +
	`else if(/^#e-[0-9]+$/.test(h))pick(h.slice(1))});` +
	`if(/^#e-[0-9]+$/.test(location.hash))pick(location.hash.slice(1))})();`

// contentPolicy allows nothing but the page's own style, its one script
// (by hash) and data: images: even markup that got into the page could not
// run a script or load anything.
func contentPolicy() string {
	sum := sha256.Sum256([]byte(pageJS))
	return "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-" +
		base64.StdEncoding.EncodeToString(sum[:]) + "'; base-uri 'none'; form-action 'none'"
}
