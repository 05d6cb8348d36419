// Stepping through a run: a slider and the arrow keys move the cursor;
// the tables show the durable rows after the current event, with what it
// changed marked. Every run of the page carries its events as JSON.
(function () {
  "use strict";
  var runs = {};
  var active = null;

  function setup(section) {
    var id = section.getAttribute("data-run");
    var data = JSON.parse(document.getElementById(id + "-data").textContent);
    var run = {
      id: id, events: data.events, section: section,
      slider: document.getElementById(id + "-slider"),
      current: document.getElementById(id + "-current"),
      tables: document.getElementById(id + "-tables"),
      moment: document.getElementById(id + "-moment"),
      cursor: document.getElementById(id + "-cursor"),
      i: 0
    };
    var svg = document.getElementById(id + "-svg");
    run.top = Number(svg.getAttribute("data-top"));
    run.row = Number(svg.getAttribute("data-row"));
    runs[id] = run;
    run.slider.max = String(run.events.length - 1);
    run.slider.addEventListener("input", function () { show(run, Number(run.slider.value), true); });
    run.slider.addEventListener("focus", function () { active = run; });
    section.addEventListener("click", function () { active = run; });
    show(run, 0, false);
  }

  // show moves run to event i and redraws its tables.
  function show(run, i, scroll) {
    i = Math.max(0, Math.min(run.events.length - 1, i));
    var prev = document.getElementById(run.id + "-e" + run.i);
    if (prev) { prev.classList.remove("cur"); }
    run.i = i;
    run.slider.value = String(i);
    var ev = run.events[i];
    var g = document.getElementById(run.id + "-e" + i);
    g.classList.add("cur");
    run.cursor.setAttribute("y", String(run.top + i * run.row));
    if (scroll) { g.scrollIntoView({ block: "nearest" }); }
    run.current.textContent = "#" + (i + 1) + "/" + run.events.length + "  " + ev.text;
    // The tables say which moment they show: after this event.
    run.moment.textContent = run.moment.getAttribute("data-label") + " #" + (i + 1) + ": " + ev.text.split("\n")[0];
    drawTables(run, i);
  }

  // drawTables replays the rows of events 0..i and draws every table.
  function drawTables(run, i) {
    var tables = {}, order = [];
    for (var j = 0; j <= i; j++) {
      var rows = run.events[j].rows || [];
      for (var k = 0; k < rows.length; k++) {
        var r = rows[k], name = r[0] + "." + r[1];
        if (!tables[name]) { tables[name] = {}; order.push(name); }
        tables[name][r[2]] = { value: r[3], deleted: r[4] === 1, at: j };
      }
    }
    var box = run.tables;
    while (box.firstChild) { box.removeChild(box.firstChild); }
    order.sort(function (a, b) { return rank(a) - rank(b) || (a < b ? -1 : 1); });
    order.forEach(function (name) {
      var t = document.createElement("table");
      t.className = "rows";
      var cap = document.createElement("caption");
      cap.textContent = name;
      t.appendChild(cap);
      Object.keys(tables[name]).sort().forEach(function (key) {
        var row = tables[name][key];
        if (row.deleted && row.at !== i) { return; }
        var tr = document.createElement("tr");
        if (row.at === i) { tr.className = row.deleted ? "changed deleted" : "changed"; }
        [key, row.deleted ? run.moment.getAttribute("data-deleted") : row.value].forEach(function (text) {
          var td = document.createElement("td");
          td.textContent = text;
          tr.appendChild(td);
        });
        t.appendChild(tr);
      });
      box.appendChild(t);
    });
  }

  // rank orders the tables as the data flows: orders, outbox, broker, billing.
  function rank(name) {
    var first = ["orders.orders", "orders.outbox", "broker.log", "billing.inbox", "billing.ledger", "billing.accounts"];
    var at = first.indexOf(name);
    return at < 0 ? first.length : at;
  }

  document.addEventListener("keydown", function (e) {
    if (!active || e.altKey || e.ctrlKey || e.metaKey) { return; }
    var step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1, PageDown: 10, PageUp: -10 }[e.key];
    if (e.key === "Home") { step = -active.i; }
    if (e.key === "End") { step = active.events.length; }
    if (step === undefined) { return; }
    e.preventDefault();
    show(active, active.i + step, true);
  });

  // A link to an event (#run-e12) moves the cursor there.
  document.addEventListener("click", function (e) {
    var a = e.target.closest ? e.target.closest("a[data-step]") : null;
    if (!a) { return; }
    var run = runs[a.getAttribute("data-run")];
    if (run) { active = run; show(run, Number(a.getAttribute("data-step")), true); }
  });

  // On the matrix page a cell's link opens its run.
  function openTarget() {
    var id = location.hash.slice(1);
    var el = id && document.getElementById(id);
    if (el && el.classList.contains("run-section")) {
      active = runs[el.getAttribute("data-run")] || active;
    }
  }
  window.addEventListener("hashchange", openTarget);

  Array.prototype.forEach.call(document.querySelectorAll("[data-run].run-section"), setup);
  var first = document.querySelector("[data-run].run-section");
  if (first) { active = runs[first.getAttribute("data-run")]; }
  openTarget();
  document.documentElement.classList.add("js");
})();
