package report_test

import "testing"

// TestWhatAReaderSees loads pages in headless Chromium and checks what is
// rendered, by the boxes the browser laid out: the matrix legend's terms
// beside their own meanings, every label of a diagram inside the diagram
// and the diagram inside its box, the lanes in process order (relay-1
// before relay-2), a broker outage drawn over the broker's lane for the
// events it refused, and a stalled process's pause drawn on its lane from
// the stall to where it moves again. Each check was first seen failing on
// the pages before they were fixed. It runs with OUTBOXLAB_BROWSER=1, as
// TestPagesInABrowser.
func TestWhatAReaderSees(t *testing.T) {
	b := browserOrSkip(t)
	pages := []struct {
		name   string
		args   []string
		checks []string // the JavaScript checks below, by name
	}{
		{"matrix", []string{"matrix", "--format", "html", "--variant", "outbox", "--variant", "dual-write", "--variant", "non-idempotent-consumer"}, []string{"legend"}},
		{"matrix-de", []string{"matrix", "--format", "html", "--lang", "de", "--variant", "outbox", "--variant", "dual-write", "--variant", "non-idempotent-consumer"}, []string{"legend"}},
		{"stall", []string{"scenario", "stall", "--format", "html"}, []string{"labels", "lanes", "pauses"}},
		{"two-relays", []string{"scenario", "two-relays", "--format", "html"}, []string{"labels", "lanes"}},
		{"broker-outage", []string{"scenario", "broker-outage", "--format", "html"}, []string{"labels", "outages"}},
		{"slow-commit", []string{"scenario", "slow-commit", "--format", "html"}, []string{"labels", "lanes", "pauses"}},
		{"claim-4711", []string{"scenario", "claim-4711", "--format", "html"}, []string{"labels", "outages"}},
		{"after-send-before-sent", []string{"scenario", "after-send-before-sent", "--format", "html"}, []string{"labels", "lanes", "arrows", "times"}},
		{"after-send-before-sent-de", []string{"scenario", "after-send-before-sent", "--format", "html", "--lang", "de"}, []string{"labels", "arrows", "times"}},
		{"commit-failure", []string{"scenario", "commit-failure:consumer.commit@1", "--format", "html", "--relays", "2"}, []string{"labels", "lanes"}},
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			_, file := pageFile(t, p.name, p.args)
			session := b.open(t)
			for _, width := range []int{1280, 1400} {
				session.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": false})
				session.load(t, file)
				for _, check := range p.checks {
					problems, _ := session.eval(t, readerChecks[check]).([]any)
					for _, problem := range problems {
						t.Errorf("%d px wide, %s: %s", width, check, problem)
					}
				}
			}
		})
	}
}

// readerChecks return a list of what a reader would see wrong.
var readerChecks = map[string]string{
	// The arrows of one event apart: two that span the same lanes are
	// drawn at least 4 px apart (a delivery and its acknowledgement
	// between the broker and billing).
	"arrows": `(() => {
		const out = [];
		let pairs = 0;
		for (const g of document.querySelectorAll("svg.diagram g.ev")) {
			const lines = [...g.querySelectorAll(".msg line")].map(l => [Number(l.getAttribute("x1")), Number(l.getAttribute("x2")), Number(l.getAttribute("y1"))]);
			for (let i = 0; i < lines.length; i++) for (let j = i + 1; j < lines.length; j++) {
				const [a1, a2, ay] = lines[i], [b1, b2, by] = lines[j];
				const shared = Math.min(Math.max(a1, a2), Math.max(b1, b2)) - Math.max(Math.min(a1, a2), Math.min(b1, b2));
				if (shared <= 10) continue;
				pairs++;
				if (Math.abs(ay - by) < 4) out.push(g.querySelector("title").textContent.split("\n")[0] + ": two arrows " + Math.abs(ay - by) + " px apart");
			}
		}
		if (pairs === 0) out.push("no event with two arrows over the same lanes: the check checks nothing");
		return out;
	})()`,
	// Every time on the axis clear of every label and phase name.
	"times": `(() => {
		const out = [];
		for (const svg of document.querySelectorAll("svg.diagram")) {
			const labels = [...svg.querySelectorAll("text.label, text.phase")].map(t => [t, t.getBBox()]);
			for (const time of svg.querySelectorAll("text.time")) {
				const r = time.getBBox();
				for (const [t, b] of labels) {
					if (b.x < r.x + r.width && r.x < b.x + b.width && b.y < r.y + r.height && r.y < b.y + b.height) {
						out.push(JSON.stringify(time.textContent) + " runs into " + JSON.stringify(t.textContent));
					}
				}
			}
		}
		return out;
	})()`,
	// Every term of the legend beside its own meaning: the meaning to its
	// right, their lines overlapping by at least half the term's height,
	// and beside no other term.
	"legend": `(() => {
		const out = [];
		const dts = [...document.querySelectorAll("dl.legend dt")];
		if (dts.length < 5) out.push("the legend has " + dts.length + " terms");
		const boxes = dts.map(dt => [dt, dt.nextElementSibling, dt.getBoundingClientRect(), dt.nextElementSibling.getBoundingClientRect()]);
		const overlap = (a, b) => Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
		for (const [dt, dd, a, b] of boxes) {
			if (dd.tagName !== "DD") { out.push(dt.textContent + " has no meaning after it"); continue; }
			if (b.left < a.right - 1 || overlap(a, b) < a.height / 2) {
				out.push(JSON.stringify(dt.textContent) + " (lines " + Math.round(a.top) + "-" + Math.round(a.bottom) + ") is not beside its meaning " + JSON.stringify(dd.textContent) + " (lines " + Math.round(b.top) + "-" + Math.round(b.bottom) + ")");
			}
			for (const [other, , c] of boxes) {
				if (other !== dt && overlap(b, c) > c.height / 2) out.push(JSON.stringify(dd.textContent) + " sits beside " + JSON.stringify(other.textContent));
			}
		}
		return out;
	})()`,
	// Every text of every diagram inside the diagram, and every diagram
	// inside its box (no scrolling sideways at 1400 pixels).
	"labels": `(() => {
		const out = [];
		for (const svg of document.querySelectorAll("svg.diagram")) {
			const w = svg.viewBox.baseVal.width, h = svg.viewBox.baseVal.height;
			for (const text of svg.querySelectorAll("text")) {
				const r = text.getBBox();
				if (r.x < -0.5 || r.x + r.width > w + 0.5 || r.y < -0.5 || r.y + r.height > h + 0.5) {
					out.push(JSON.stringify(text.textContent) + " at x " + Math.round(r.x) + "-" + Math.round(r.x + r.width) + " is cut off by the diagram's width " + w);
				}
			}
			const box = svg.parentElement;
			if (box.scrollWidth > box.clientWidth + 1) out.push("the diagram (" + box.scrollWidth + " px) is wider than its box (" + box.clientWidth + " px)");
		}
		return out;
	})()`,
	// The lanes left to right in process order: service-1 before
	// service-2, relay-1 before relay-2.
	"lanes": `(() => {
		const out = [];
		for (const svg of document.querySelectorAll("svg.diagram")) {
			const lanes = [...svg.querySelectorAll("text.lane")].map(t => [t.textContent, t.getBBox().x]);
			for (const [a, ax] of lanes) for (const [b, bx] of lanes) {
				const ma = a.match(/^(.*)-(\d+)$/), mb = b.match(/^(.*)-(\d+)$/);
				if (ma && mb && ma[1] === mb[1] && Number(ma[2]) < Number(mb[2]) && ax > bx) out.push(a + "'s lane is right of " + b + "'s");
			}
		}
		return out;
	})()`,
	// A broker outage drawn over the broker's lane: every publish the
	// broker refused as unavailable lies in a drawn outage.
	"outages": `(() => {
		const out = [];
		for (const svg of document.querySelectorAll("svg.diagram")) {
			const run = svg.id.replace(/-svg$/, "");
			const events = JSON.parse(document.getElementById(run + "-data").textContent).events;
			const lane = [...svg.querySelectorAll("text.lane")].find(t => t.textContent === "broker");
			const laneBox = lane.getBoundingClientRect(), x = laneBox.left + laneBox.width / 2;
			const drawn = [...svg.querySelectorAll(".outage")].map(e => e.getBoundingClientRect());
			let refused = 0;
			events.forEach((e, i) => {
				if (!e.text.includes("broker unavailable")) return;
				refused++;
				const row = document.getElementById(run + "-e" + i).querySelector(".time").getBoundingClientRect();
				const y = row.top + row.height / 2;
				if (!drawn.some(r => r.left <= x && x <= r.right && r.top <= y && y <= r.bottom)) out.push("event " + (i + 1) + " (" + e.text.split("\n")[0] + ") was refused by a broker that is not drawn down there");
			});
			if (refused === 0) out.push("no publish refused: the check checks nothing");
		}
		return out;
	})()`,
	// A stalled process's pause drawn on its lane from the stall to the
	// row where it moves again (or to the end of the run).
	"pauses": `(() => {
		const out = [];
		for (const svg of document.querySelectorAll("svg.diagram")) {
			const run = svg.id.replace(/-svg$/, "");
			const events = JSON.parse(document.getElementById(run + "-data").textContent).events;
			const drawn = [...svg.querySelectorAll(".pause")].map(e => e.getBoundingClientRect());
			// An event's line: [day N] hh:mm:ss.mmm process kind action ...
			const fields = text => { const f = text.split("\n")[0].trim().split(/\s+/); return f[0] === "day" ? f.slice(2) : f; };
			const process = text => fields(text)[1];
			let stalls = 0;
			events.forEach((e, i) => {
				if (fields(e.text)[2] !== "stall") return;
				stalls++;
				const who = process(e.text);
				const lane = [...svg.querySelectorAll("text.lane")].find(t => t.textContent === who);
				if (!lane) { out.push("no lane for " + who); return; }
				const lb = lane.getBoundingClientRect(), x = lb.left + lb.width / 2;
				let until = events.length - 1;
				for (let j = i + 1; j < events.length; j++) if (process(events[j].text) === who) { until = j; break; }
				const rowY = k => { const r = document.getElementById(run + "-e" + k).querySelector(".time").getBoundingClientRect(); return r.top + r.height / 2; };
				for (let k = i + 1; k < until; k++) {
					const y = rowY(k);
					if (!drawn.some(r => r.left <= x && x <= r.right && r.top <= y && y <= r.bottom)) {
						out.push(who + " stalled at event " + (i + 1) + " and moves again at event " + (until + 1) + ", but its pause is not drawn at event " + (k + 1));
						break;
					}
				}
			});
			if (stalls === 0) out.push("no stall: the check checks nothing");
		}
		return out;
	})()`,
}
