(function () {
  'use strict';
  var body = document.body, errors = [];
  function fail(e) {
    errors.push(String(e && e.message ? e.message : e));
    body.setAttribute('data-chart-errors', errors.join(' | '));
  }
  window.addEventListener('error', function (ev) { fail(ev.message || 'error'); });
  try {
    var data = JSON.parse(document.getElementById('rcf-chart-data').textContent);
    var g = data.geometry, span = g.last - g.first + 1, col = g.width / span;
    var charts = [], ready = 0;
    var svgs = document.querySelectorAll('svg[data-chart]');
    for (var i = 0; i < svgs.length; i++) {
      var svg = svgs[i], c = data.charts[+svg.getAttribute('data-chart')];
      if (!c) throw new Error('chart ' + svg.getAttribute('data-chart') + ' has no data');
      var line = svg.querySelector('path.programs'), box = line ? line.getBBox() : null;
      if (box && (box.width > 0 || box.height > 0)) ready++;
      charts.push({svg: svg, c: c, cursor: svg.querySelector('.cursor'),
                   readout: svg.querySelector('.readout'),
                   marks: svg.querySelector('.readout-marks')});
    }
    // The last entry whose step is <= step (series are sorted by step).
    function at(series, step) {
      var lo = 0, hi = series.length - 1, found = null;
      while (lo <= hi) {
        var mid = (lo + hi) >> 1;
        if (series[mid][0] <= step) { found = series[mid]; lo = mid + 1; } else hi = mid - 1;
      }
      return found;
    }
    function ms(v) {
      if (v === null || v === undefined) return 'time unknown';
      if (v >= 60000) return (v / 60000).toFixed(1) + ' min';
      if (v >= 1000) return (v / 1000).toFixed(1) + ' s';
      return Math.round(v) + ' ms';
    }
    function show(step) {
      for (var i = 0; i < charts.length; i++) {
        var ch = charts[i], c = ch.c, x = g.left + (step - g.first + 0.5) * col;
        ch.cursor.setAttribute('x1', x.toFixed(1));
        ch.cursor.setAttribute('x2', x.toFixed(1));
        ch.cursor.setAttribute('visibility', 'visible');
        var bucket = c.first + Math.floor((step - c.first) / c.bucket) * c.bucket;
        var text, marks = [];
        if (step < c.first || step > c.last) {
          text = 'step ' + step + ': outside this run (' + c.first + '..' + c.last + ')';
        } else {
          var p = at(c.programs, step), bar = at(c.compiles, step);
          text = (c.bucket > 1 ? 'steps ' + bucket + '..' + (bucket + c.bucket - 1)
                               : 'step ' + step) +
              ': ' + (p ? p[1] : 0) + ' programs cached';
          if (bar && bar[0] === bucket)
            text += ', ' + bar[1] + (bar[1] === 1 ? ' compile (' : ' compiles (') +
                ms(bar[2]) + ')';
          for (var k = 0; k < c.marks.length; k++)
            if (c.marks[k][0] === bucket) marks.push(c.marks[k][2] + ' ' + c.marks[k][1]);
        }
        ch.readout.textContent = text;
        ch.marks.textContent = marks.length ? 'recompiles: ' + marks.join(', ') : '';
        ch.readout.setAttribute('visibility', 'visible');
        ch.marks.setAttribute('visibility', 'visible');
      }
      body.setAttribute('data-cursor-step', String(step));
    }
    function hide() {
      for (var i = 0; i < charts.length; i++) {
        charts[i].cursor.setAttribute('visibility', 'hidden');
        charts[i].readout.setAttribute('visibility', 'hidden');
        charts[i].marks.setAttribute('visibility', 'hidden');
      }
    }
    function onMove(ev) {
      var svg = ev.currentTarget, pt = svg.createSVGPoint();
      pt.x = ev.clientX;
      pt.y = ev.clientY;
      var ctm = svg.getScreenCTM();
      if (!ctm) return;
      var x = pt.matrixTransform(ctm.inverse()).x;
      var step = g.first + Math.floor((x - g.left) / col);
      show(Math.max(g.first, Math.min(g.last, step)));
    }
    for (var j = 0; j < charts.length; j++) {
      charts[j].svg.addEventListener('mousemove', onMove);
      charts[j].svg.addEventListener('mouseleave', hide);
    }
    var m = /cursor=(-?\d+)/.exec(window.location.hash);
    if (m) show(parseInt(m[1], 10));
    body.setAttribute('data-charts-total', String(charts.length));
    body.setAttribute('data-charts-ready', String(ready));
  } catch (e) {
    fail(e);
  }
})();
