// Loads a gcheap report in headless Chromium and checks it as a person would
// use it. Usage:
//   node check_report.js CHROMIUM REPORT.html [--screenshot OUT.png]
//        [--first-type NAME] [--first-retained BYTES] [--text STRING]...
//        [--compare] [--suspects] [--render-only]
// --render-only: only that the page draws itself, runs nothing from the data,
// makes no request and logs no error (empty heaps, missing sections).
// --first-type/--first-retained: the biggest child of the virtual root, as
// `gcheap top --top 1` reports it (computed by the test script, not here).
// --text: a string the page must show as text (e.g. a hostile type name).
// --open: clicking the first type row that opens shows that type's biggest
// instances (the data's, in order) and the path that holds the first.
// Fails (exit 1) on a console error, an exception, any network request other
// than the report itself, or a check that does not hold.
'use strict';
const fs = require('fs');
const path = require('path');
const { open } = require('./cdp');

const args = process.argv.slice(2);
const exe = args[0], file = path.resolve(args[1]);
const opt = { texts: [] };
for (let i = 2; i < args.length; i++) {
  const a = args[i];
  if (a === '--screenshot') opt.screenshot = args[++i];
  else if (a === '--first-type') opt.firstType = args[++i];
  else if (a === '--first-retained') opt.firstRetained = Number(args[++i]);
  else if (a === '--text') opt.texts.push(args[++i]);
  else if (a === '--compare') opt.compare = true;
  else if (a === '--quick') opt.quick = true;
  else if (a === '--suspects') opt.suspects = true;
  else if (a === '--render-only') opt.renderOnly = true;
  else if (a === '--open') opt.open = true;
  else throw new Error('unknown argument ' + a);
}

let failures = 0;
function check(ok, what) {
  console.log((ok ? 'ok   ' : 'FAIL ') + what);
  if (!ok) failures++;
}

async function main() {
  const url = 'file://' + file;
  const t0 = Date.now();
  const { page, close } = await open(exe, url);
  try {
    // The page marks itself ready when everything is drawn.
    let ready = null;
    for (let i = 0; i < 200 && ready !== '1'; i++) {
      ready = await page.eval("document.body.getAttribute('data-ready')");
      if (ready !== '1') await new Promise((r) => setTimeout(r, 50));
    }
    check(ready === '1', 'the page drew itself (data-ready) in ' + (Date.now() - t0) + ' ms from launch');
    if (opt.screenshot) {
      // As the page opens, before the checks below change it.
      await page.mouse('mouseMoved', 5, 5);
      const shot = await page.send('Page.captureScreenshot', { format: 'png' });
      fs.writeFileSync(opt.screenshot, Buffer.from(shot.data, 'base64'));
      check(fs.statSync(opt.screenshot).size > 10000, 'screenshot written to ' + opt.screenshot);
    }
    check(await page.eval('document.scripts.length') === 2, 'exactly the two scripts of the template');
    check(await page.eval('window.__gcheap_xss === undefined'), 'no script from the data ran');

    if (opt.renderOnly) {
      const text = await page.eval("document.getElementById('main').textContent");
      check(text.length > 0 && !text.includes('could not be drawn'), 'the page has content and no drawing error');
    } else {
      await interact(page);
    }
    const foreign = page.requests.filter((u) => u !== url);
    check(foreign.length === 0, 'no network request besides the report itself' +
          (foreign.length ? ': ' + foreign.join(' ') : ''));
    check(page.errors.length === 0, 'no console error or exception' +
          (page.errors.length ? ':\n  ' + page.errors.join('\n  ') : ''));
  } finally {
    close();
  }
  if (failures) {
    console.log(failures + ' check(s) failed');
    process.exit(1);
  }
}

// The checks of a person using the page: chart, hover, zoom, breadcrumb,
// suspects, type table.
async function interact(page) {
  {
    if (opt.compare) {
      const rows = await page.eval("document.querySelectorAll('#compare table tbody tr').length");
      check(rows > 0, 'the comparison table has rows (' + rows + ')');
      const tab = await page.eval("[...document.querySelectorAll('#tabs button')].map(b => b.textContent)");
      check(tab.length === 3 && tab[0] === 'Comparison', 'three tabs, the comparison first: ' + JSON.stringify(tab));
      // Open the new dump's tab so its chart is drawn.
      const r = await page.eval("(() => { const b = document.querySelectorAll('#tabs button')[1].getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()");
      await page.click(r[0], r[1]);
    }

    for (const t of opt.texts) {
      const shown = await page.eval('document.body.textContent.includes(' + JSON.stringify(t) + ')');
      check(shown, 'shows as text: ' + t);
    }

    // The chart: the first level under the root, widest first.
    const level1 = await page.eval(`(() => {
      const c = [...document.querySelectorAll('.chart')].find(x => x.offsetParent !== null);
      const d = JSON.parse(document.getElementById('gcheap-data').textContent);
      const tr = d.dumps[0].sections[0].tree;
      // Objects only: the merged node "(N smaller objects)" may be wider.
      const rs = [...c.querySelectorAll('rect[data-node]')]
        .filter(r => +r.getAttribute('y') === 20 && tr.type[+r.getAttribute('data-node')] >= 0);
      return rs.map(r => ({ node: +r.getAttribute('data-node'), w: +r.getAttribute('width'),
                            label: (r.nextSibling && r.nextSibling.textContent) || '' }))
               .sort((a, b) => b.w - a.w);
    })()`);
    check(level1.length > 0, 'the chart shows the children of the root (' + level1.length + ')');
    const first = level1[0];
    const firstInfo = await page.eval(`(() => {
      const d = JSON.parse(document.getElementById('gcheap-data').textContent);
      const sec = d.dumps[0].sections[0], tr = sec.tree, n = ${first ? first.node : 0};
      return { type: tr.type[n] >= 0 ? sec.types.name[tr.type[n]] : null, retained: tr.retained[n] };
    })()`);
    if (opt.firstType !== undefined) {
      check(firstInfo.type === opt.firstType, 'the widest root child is ' + opt.firstType + ' (got ' + firstInfo.type + ')');
      if (first.w > 46) check(first.label.startsWith(opt.firstType.slice(0, 10)), 'its label starts with its type: ' + first.label);
      else console.log('skip its label: ' + first.w.toFixed(1) + ' px is too narrow for one');
    }
    if (opt.firstRetained !== undefined)
      check(firstInfo.retained === opt.firstRetained, 'it retains ' + opt.firstRetained + ' bytes (got ' + firstInfo.retained + ')');

    // Hover: the tooltip names the node and its retained size.
    const box = await page.eval(`(() => {
      const r = [...document.querySelectorAll('rect[data-node="${first.node}"]')].find(x => x.getBoundingClientRect().width > 0);
      r.scrollIntoView({ block: 'center' });
      const b = r.getBoundingClientRect();
      return [b.x + Math.min(b.width / 2, 40), b.y + b.height / 2];
    })()`);
    await page.mouse('mouseMoved', box[0], box[1]);
    const tip = await page.eval("document.getElementById('tip').hidden ? null : document.getElementById('tip').textContent");
    check(tip !== null && tip.includes('retained') && tip.includes(String(firstInfo.retained.toLocaleString('en-US'))),
          'hovering shows the retained size: ' + tip);

    // Click: zooms into the node (it spans the whole width at the top).
    await page.click(box[0], box[1]);
    const zoomed = await page.eval(`(() => {
      const c = [...document.querySelectorAll('.chart')].find(x => x.offsetParent !== null);
      const top = c.querySelector('rect[data-node]');
      return { node: +top.getAttribute('data-node'), crumbs: c.querySelectorAll('.crumbs button').length,
               width: +top.getAttribute('width'), full: +c.querySelector('svg').viewBox.baseVal.width };
    })()`);
    check(zoomed.node === first.node && zoomed.crumbs === 2 && zoomed.width >= zoomed.full - 1,
          'clicking zooms into it: ' + JSON.stringify(zoomed));
    // The breadcrumb's first button goes back out.
    const crumb = await page.eval(`(() => {
      const c = [...document.querySelectorAll('.chart')].find(x => x.offsetParent !== null);
      const b = c.querySelector('.crumbs button').getBoundingClientRect();
      return [b.x + b.width / 2, b.y + b.height / 2];
    })()`);
    await page.click(crumb[0], crumb[1]);
    const back = await page.eval(`(() => {
      const c = [...document.querySelectorAll('.chart')].find(x => x.offsetParent !== null);
      return +c.querySelector('rect[data-node]').getAttribute('data-node');
    })()`);
    check(back === 0, 'the breadcrumb goes back to the root');

    if (opt.suspects) {
      // Leak suspects: one heading per suspect of the data; "show in the
      // chart" zooms the chart into the first one's accumulation point.
      const sus = await page.eval(`(() => {
        const d = JSON.parse(document.getElementById('gcheap-data').textContent);
        const sec = d.dumps[0].sections[0];
        const shown = document.querySelectorAll('section.suspects h3').length;
        return { n: sec.suspects ? sec.suspects.length : -1, shown, acc: sec.suspects && sec.suspects.length ? sec.suspects[0].accumulation.id : null };
      })()`);
      check(sus.n > 0 && sus.shown === sus.n, 'the suspects are shown: ' + JSON.stringify(sus));
      const b = await page.eval(`(() => {
        const b = document.querySelector('section.suspects button');
        b.scrollIntoView({ block: 'center' });
        const r = b.getBoundingClientRect();
        return [r.x + r.width / 2, r.y + r.height / 2];
      })()`);
      await page.click(b[0], b[1]);
      const z = await page.eval(`(() => {
        const d = JSON.parse(document.getElementById('gcheap-data').textContent);
        const tr = d.dumps[0].sections[0].tree;
        const c = document.querySelector('.chart');
        return tr.id[+c.querySelector('rect[data-node]').getAttribute('data-node')];
      })()`);
      check(z === sus.acc, 'show in the chart zooms into the accumulation point ' + sus.acc + ' (got ' + z + ')');
      const crumb = await page.eval(`(() => {
        const b = document.querySelector('.chart .crumbs button').getBoundingClientRect();
        return [b.x + b.width / 2, b.y + b.height / 2];
      })()`);
      await page.click(crumb[0], crumb[1]);
    }

    if (opt.open) {
      // Open the first type row that has instances: click its toggle.
      const b = await page.eval(`(() => {
        const b = document.querySelector('table.types button.toggle');
        if (!b) return null;
        b.scrollIntoView({ block: 'center' });
        const r = b.getBoundingClientRect();
        return [r.x + r.width / 2, r.y + r.height / 2, b.closest('tr').lastChild.textContent];
      })()`);
      check(b !== null, 'a type row has a toggle');
      if (b) {
        await page.click(b[0], b[1]);
        const got = await page.eval(`(() => {
          const d = JSON.parse(document.getElementById('gcheap-data').textContent);
          const sec = d.dumps[0].sections[0];
          const row = sec.types.name.indexOf(${JSON.stringify(b[2])});
          const inst = sec.instances.find(x => x.row === row);
          const det = document.querySelector('table.types tr.detail');
          if (!det) return null;
          const ids = [...det.querySelectorAll('table.inst tr')].slice(1).map(tr => tr.firstChild.textContent);
          return { ids, want: inst.objects.map(o => o.id), steps: det.querySelectorAll('ol.path li:not(.elided)').length,
                   wantSteps: inst.path ? inst.path.steps.length : 0 };
        })()`);
        check(got !== null && JSON.stringify(got.ids) === JSON.stringify(got.want) && got.steps === got.wantSteps,
              'clicking the toggle of ' + b[2] + ' shows its biggest instances and the path: ' + JSON.stringify(got));
        await page.click(b[0], b[1]);
        const closed = await page.eval("document.querySelectorAll('table.types tr.detail').length");
        check(closed === 0, 'clicking again closes it');
      }
    }

    if (!opt.compare) {
      // The type table: sort by retained, then filter.
      const sorted = await page.eval(`(() => {
        const t = document.querySelector('table.types');
        const ths = [...t.querySelectorAll('th')], th = ths.find(h => h.textContent === 'retained');
        th.click();
        const col = ths.indexOf(th);
        return [...t.querySelectorAll('tbody tr:not(.detail)')].map(tr => +tr.children[col].textContent.replace(/,/g, ''));
      })()`);
      check(sorted.length > 0 && sorted.every((v, i) => i === 0 || sorted[i - 1] >= v),
            'sorting by retained orders the rows (' + sorted.slice(0, 5).join(' ') + ' ...)');
      const filtered = await page.eval(`(() => {
        const t = document.querySelector('table.types');
        const names = [...t.querySelectorAll('tbody tr:not(.detail)')].map(tr => tr.lastChild.textContent);
        const q = names[names.length - 1];
        const input = t.closest('div').parentNode.querySelector('input[type=search]');
        input.value = q;
        input.dispatchEvent(new Event('input'));
        const after = [...t.querySelectorAll('tbody tr:not(.detail)')].map(tr => tr.lastChild.textContent);
        const all = JSON.parse(document.getElementById('gcheap-data').textContent).dumps[0].sections[0].types.name;
        const expect = Math.min(300, all.filter(n => n.toLowerCase().includes(q.toLowerCase())).length);
        return { q, after, expect };
      })()`);
      check(filtered.after.length === filtered.expect && filtered.after.every((n) => n.includes(filtered.q)),
            'filtering keeps the matching rows only (' + filtered.after.length + ')');
    }

  }
}

main().catch((e) => { console.error(e.stack || String(e)); process.exit(1); });
