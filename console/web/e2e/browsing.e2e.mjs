// End-to-end test of the web console's views (see web_console.e2e.mjs for how to run it): a
// column sorted both ways, the namespace selector, the events pane's filters (type, kind,
// namespace), pause and resume, clear, the split between the table and the detail pane
// (mouse, keyboard, remembered), and the icon under the page's CSP.
import { WEB, consoleParts, eventually, gridRows, kubectl, openBrowser, runScenarios, same, see } from './harness.mjs';

const session = await openBrowser();
const { page } = session;
const { table, rowNamed, events, eventsPane, openObject, rowNames, signIn } = consoleParts(page);
const cspViolations = [];
page.on('console', (message) => {
  if (message.text().includes('Content Security Policy')) {
    cspViolations.push(message.text());
  }
});

const ALL_CONFIGMAPS = '#/r/core/v1/configmaps';
const headerNamespace = page.getByRole('banner').getByLabel('Namespace', { exact: true });
const eventFilters = eventsPane.getByRole('group', { name: 'Event filters' });
const pauseButton = eventsPane.getByRole('button', { name: /^(Pause|Resume)$/ });

// The events listed, as "TYPE Kind namespace/name".
async function eventLines() {
  return (await gridRows(events)).map(({ cells }) => `${cells[1]} ${cells[2]} ${cells[3]}`);
}

// Waits until every event listed passes `keep` and `expected` is among them.
async function eventsShown(what, keep, expected) {
  await eventually(what, async () => {
    const lines = await eventLines();
    const stray = lines.filter((line) => !keep(line));
    if (stray.length > 0) {
      throw new Error(`listed, not expected: ${stray.join(', ')}`);
    }
    if (!lines.includes(expected)) {
      throw new Error(`"${expected}" not among ${lines.join(', ')}`);
    }
    return true;
  });
}

function configMapsIn(namespace) {
  return kubectl('get', 'configmaps', '-n', namespace, '-o', 'jsonpath={.items[*].metadata.name}').split(' ').sort();
}

const separator = page.getByRole('separator', { name: 'Resize the detail pane' });

async function separatorValue() {
  return Number(await separator.getAttribute('aria-valuenow'));
}

async function detailWidth() {
  return (await page.locator('.detail-pane').boundingBox()).width;
}

const scenarios = [
  ['a column sorts ascending then descending (names naturally, counts by value), live rows in place', async () => {
    // Names and numbers of keys in opposite orders: e2e-sort-1 has 10 keys, e2e-sort-10 one.
    for (const [name, keys] of [['e2e-sort-2', 2], ['e2e-sort-10', 1], ['e2e-sort-1', 10]]) {
      kubectl('create', 'configmap', name, ...Array.from({ length: keys }, (_, i) => `--from-literal=k${i}=v`));
    }
    await signIn('#/r/core/v1/configmaps?ns=default&q=e2e-sort');
    await see(rowNamed('e2e-sort-10'), 'the row e2e-sort-10');
    const sortedBy = async (label, order, expected) => {
      const header = table.getByRole('columnheader', { name: label });
      await header.click();
      await eventually(`${label} ${order}`, async () => (await header.getAttribute('aria-sort')) === order);
      await eventually(`the rows sorted by ${label}, ${order}`, async () => {
        same(`the rows sorted by ${label}, ${order}`, await rowNames(), expected);
        return true;
      });
      const sort = new URL(page.url()).hash.match(/[?&]sort=([^&]*)/)?.[1];
      same('the sort in the URL', decodeURIComponent(sort ?? ''), order === 'ascending' ? label : `-${label}`);
    };
    await sortedBy('Name', 'ascending', ['e2e-sort-1', 'e2e-sort-2', 'e2e-sort-10']);
    await sortedBy('Name', 'descending', ['e2e-sort-10', 'e2e-sort-2', 'e2e-sort-1']);
    kubectl('create', 'configmap', 'e2e-sort-3', '--from-literal=k0=v', '--from-literal=k1=v', '--from-literal=k2=v');
    await eventually('a row created meanwhile in its sorted place', async () => {
      same('the rows, descending, after a create', await rowNames(), ['e2e-sort-10', 'e2e-sort-3', 'e2e-sort-2', 'e2e-sort-1']);
      return true;
    });
    await sortedBy('Data', 'ascending', ['e2e-sort-10', 'e2e-sort-2', 'e2e-sort-3', 'e2e-sort-1']);
    await sortedBy('Data', 'descending', ['e2e-sort-1', 'e2e-sort-3', 'e2e-sort-2', 'e2e-sort-10']);
  }],

  ['the namespace selector limits the rows to the namespace chosen', async () => {
    kubectl('create', 'namespace', 'e2e-ns');
    kubectl('create', 'configmap', 'e2e-in-ns', '-n', 'e2e-ns', '--from-literal=k=v');
    await page.goto(`${WEB}${ALL_CONFIGMAPS}`);
    await see(rowNamed('e2e-in-ns'), 'the row e2e-in-ns among all namespaces');
    await see(rowNamed('e2e-sort-1'), 'the row e2e-sort-1 among all namespaces');
    await see(headerNamespace.locator('option[value="e2e-ns"]'), 'the namespace e2e-ns to choose', 'attached');
    await headerNamespace.selectOption('e2e-ns');
    await eventually('the URL to name the namespace', () => page.url().includes('ns=e2e-ns'));
    await see(rowNamed('e2e-sort-1'), 'the row e2e-sort-1 of another namespace', 'hidden');
    await eventually('the rows of e2e-ns alone', async () => {
      same('the rows in e2e-ns', (await rowNames()).sort(), configMapsIn('e2e-ns'));
      return true;
    });
    await headerNamespace.selectOption('default');
    await see(rowNamed('e2e-in-ns'), 'the row e2e-in-ns of another namespace', 'hidden');
    await eventually('the rows of default alone', async () => {
      same('the rows in default', (await rowNames()).sort(), configMapsIn('default'));
      return true;
    });
  }],

  ['the events pane filters by type, kind and namespace', async () => {
    await page.goto(`${WEB}${ALL_CONFIGMAPS}`);
    await see(rowNamed('e2e-in-ns'), 'the table of all namespaces');
    kubectl('create', 'namespace', 'e2e-events');
    kubectl('create', 'configmap', 'e2e-ev-a', '--from-literal=k=1');
    kubectl('create', 'configmap', 'e2e-ev-b', '-n', 'e2e-events', '--from-literal=k=1');
    kubectl('patch', 'configmap', 'e2e-ev-a', '--type=merge', '-p', '{"data":{"k":"2"}}');
    const all = () => true;
    await eventsShown('the four events', all, 'MODIFIED ConfigMap default/e2e-ev-a');
    await eventsShown('the four events', all, 'ADDED Namespace e2e-events');

    const kind = eventFilters.getByLabel('Kind', { exact: true });
    await kind.selectOption('Namespace');
    await eventsShown('Namespace events alone', (line) => line.split(' ')[1] === 'Namespace', 'ADDED Namespace e2e-events');
    await kind.selectOption('ConfigMap');
    await eventsShown('ConfigMap events alone', (line) => line.split(' ')[1] === 'ConfigMap', 'ADDED ConfigMap e2e-events/e2e-ev-b');
    await kind.selectOption('');

    const namespace = eventFilters.getByLabel('Namespace', { exact: true });
    await namespace.selectOption('e2e-events');
    await eventsShown('the events of e2e-events alone', (line) => line.split(' ')[2].startsWith('e2e-events/'), 'ADDED ConfigMap e2e-events/e2e-ev-b');
    await namespace.selectOption('');

    const added = eventFilters.getByLabel('ADDED', { exact: true });
    await added.uncheck();
    await eventsShown('no ADDED event', (line) => !line.startsWith('ADDED '), 'MODIFIED ConfigMap default/e2e-ev-a');
    await added.check();
    await eventsShown('the ADDED events again', all, 'ADDED ConfigMap default/e2e-ev-a');
  }],

  ['pause stops the list (events still counted), resume shows them, clear empties it', async () => {
    await pauseButton.click();
    await see(eventsPane.getByRole('button', { name: 'Resume', pressed: true }), 'the Resume button');
    kubectl('create', 'configmap', 'e2e-while-paused', '--from-literal=k=v');
    await see(rowNamed('e2e-while-paused'), 'the row e2e-while-paused (the watch goes on)');
    await see(eventsPane.getByText(/^Paused · [1-9]\d* new$/), 'the count of events held');
    const held = await eventLines();
    if (held.some((line) => line.includes('e2e-while-paused'))) {
      throw new Error(`an event listed while paused: ${held.join(', ')}`);
    }
    await pauseButton.click();
    await see(eventsPane.getByRole('button', { name: 'Pause', pressed: false }), 'the Pause button');
    await eventsShown('the event held, once resumed', () => true, 'ADDED ConfigMap default/e2e-while-paused');

    await eventsPane.getByRole('button', { name: 'Clear' }).click();
    // The list's note is drawn by CSS from data-empty.
    await see(events.locator('.grid-body[data-empty^="No watch events yet"]'), 'the empty log', 'attached');
    await see(eventsPane.getByText('0 events', { exact: true }), 'the count of an empty log');
    same('the events listed after Clear', await eventLines(), []);
    kubectl('patch', 'configmap', 'e2e-ev-a', '--type=merge', '-p', '{"data":{"k":"3"}}');
    await eventsShown('a new event after Clear', (line) => line === 'MODIFIED ConfigMap default/e2e-ev-a', 'MODIFIED ConfigMap default/e2e-ev-a');
  }],

  ['the split between table and detail moves by mouse and keys and is remembered', async () => {
    await page.goto(`${WEB}#/r/core/v1/configmaps?ns=default`);
    await see(separator, 'the separator', 'hidden');
    await openObject('e2e-ev-a');
    await see(separator, 'the separator beside the detail pane');
    const start = await separatorValue();
    const width = await detailWidth();
    await separator.focus();
    await page.keyboard.press('ArrowLeft');
    await eventually('the separator to move left', async () => (await separatorValue()) < start);
    await eventually('the detail pane to widen', async () => (await detailWidth()) > width);
    await page.keyboard.press('ArrowRight');
    await eventually('the separator back', async () => (await separatorValue()) === start);

    const box = await separator.boundingBox();
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x - 150, y, { steps: 5 });
    await page.mouse.up();
    await eventually('the detail pane 150 px wider', async () => Math.abs((await detailWidth()) - width - 150) < 8);
    const dragged = await separatorValue();
    if (!(dragged < start)) {
      throw new Error(`aria-valuenow ${dragged} after a drag to the left, ${start} before`);
    }
    await page.reload();
    await see(separator, 'the separator after a reload');
    await eventually('the split remembered', async () => (await separatorValue()) === dragged);
  }],

  ['the page has an icon of its own, loaded under its CSP', async () => {
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    const answer = await page.request.get(new URL(href, page.url()).href);
    same('the status of the icon', answer.status(), 200);
    same('the type of the icon', answer.headers()['content-type'], 'image/svg+xml');
    if (!(await answer.text()).includes('<svg')) {
      throw new Error('the icon is not an SVG');
    }
    const loaded = await page.evaluate(
      (src) =>
        new Promise((resolve) => {
          const image = new Image();
          image.onload = () => resolve(image.naturalWidth > 0);
          image.onerror = () => resolve(false);
          image.src = src;
        }),
      href,
    );
    same('the icon loaded as an image in the page', loaded, true);
    same('CSP violations', cspViolations, []);
  }],
];

await runScenarios('browsing', session, scenarios);
