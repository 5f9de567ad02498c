// End-to-end test of the web console in a real browser: Debian's Chromium driven by
// playwright-core (which never downloads a browser), against a running `kube-sandbox serve`.
//
//   KS_WEB_LOGIN=<web>login?token=<token> KUBECONFIG=<admin kubeconfig> \
//     node e2e/web_console.e2e.mjs
//
// KS_SCREENSHOT_DIR, when set, receives a screenshot after each scenario (and of a failure);
// KS_CHROMIUM names another Chromium binary than Debian's.
// Each scenario checks what the user sees; the first failure ends the run with exit status 1.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const TIMEOUT_MS = 15_000;
const LOGIN = process.env.KS_WEB_LOGIN;
const SCREENSHOTS = process.env.KS_SCREENSHOT_DIR;
const CHROMIUM = process.env.KS_CHROMIUM ?? '/usr/bin/chromium';

if (!LOGIN || !process.env.KUBECONFIG) {
  console.error('KS_WEB_LOGIN and KUBECONFIG must be set');
  process.exit(2);
}
const WEB = LOGIN.slice(0, LOGIN.indexOf('login?'));
const CONFIGMAPS = '#/r/core/v1/configmaps?ns=default';

function kubectl(...args) {
  return execFileSync('kubectl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

function kubectlFails(...args) {
  try {
    execFileSync('kubectl', args, { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
}

// Polls until check() returns a truthy value (or stops throwing); then returns that value.
async function eventually(what, check, timeoutMs = TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value) {
        return value;
      }
      last = undefined;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// Waits for a locator to be visible (or hidden), with a message naming what was expected.
async function see(locator, what, state = 'visible') {
  try {
    await locator.first().waitFor({ state, timeout: TIMEOUT_MS });
  } catch (error) {
    throw new Error(`expected ${what} to be ${state}: ${error.message.split('\n')[0]}`);
  }
}

async function textOf(locator) {
  return (await locator.innerText({ timeout: TIMEOUT_MS })).replace(/\s+/g, ' ');
}

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
const page = await context.newPage();
const pageErrors = [];
page.on('pageerror', (error) => pageErrors.push(error.message));

const table = page.locator('.table-pane [role="grid"]');
const rowNamed = (name) => table.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
const events = page.locator('.events-pane [role="grid"]');
const detail = page.locator('.detail-pane');
const actions = page.getByRole('toolbar', { name: 'Object actions' });
const outcome = detail.locator('.outcome');

async function openObject(name) {
  await rowNamed(name).getByRole('rowheader').click();
  await see(detail.locator('pre.yaml').filter({ hasText: `name: ${name}` }), `the YAML of ${name}`);
}

const scenarios = [
  ['sign in with a deep link shows the ConfigMap table', async () => {
    kubectl('create', 'configmap', 'e2e-alpha', '--from-literal=k=v');
    kubectl('create', 'configmap', 'e2e-beta', '--from-literal=k=v');
    await page.goto(`${LOGIN}${CONFIGMAPS}`);
    await eventually('the page at the deep link', () => page.url().startsWith(WEB) && page.url().endsWith(CONFIGMAPS));
    await see(page.getByRole('heading', { name: 'kube-sandbox' }), 'the console header');
    await see(page.getByRole('columnheader', { name: 'Name' }), 'the Name column');
    await see(rowNamed('e2e-alpha'), 'the row e2e-alpha');
    await see(rowNamed('kube-root-ca.crt'), 'the row kube-root-ca.crt');
  }],

  ['the filter leaves only the matching rows', async () => {
    const filter = page.getByLabel('Filter rows');
    await filter.fill('alpha');
    await see(rowNamed('e2e-beta'), 'the row e2e-beta', 'hidden');
    await see(rowNamed('kube-root-ca.crt'), 'the row kube-root-ca.crt', 'hidden');
    await see(rowNamed('e2e-alpha'), 'the row e2e-alpha');
    await filter.fill('');
    await see(rowNamed('e2e-beta'), 'the row e2e-beta');
  }],

  ['a created and patched object shows live, with ADDED and MODIFIED events and a diff', async () => {
    kubectl('create', 'configmap', 'e2e-live', '--from-literal=a=1');
    await see(rowNamed('e2e-live'), 'the row e2e-live (without a reload)');
    kubectl('patch', 'configmap', 'e2e-live', '--type=merge', '-p', '{"data":{"b":"2"}}');
    const liveEvent = (type) => events.getByRole('row').filter({ hasText: 'e2e-live' }).filter({ hasText: type });
    await see(liveEvent('ADDED'), 'an ADDED event of e2e-live');
    await see(liveEvent('MODIFIED'), 'a MODIFIED event of e2e-live');
    await liveEvent('MODIFIED').first().click();
    await page.getByRole('tab', { name: 'Diff' }).click();
    const diff = page.getByRole('tabpanel', { name: 'Diff' });
    await eventually('the diff to show the added key b', async () => /\bb: ["']?2/.test(await textOf(diff)));
  }],

  ['edit and apply a Deployment, a conflict on .spec.replicas, force apply', async () => {
    kubectl('create', 'deployment', 'e2e-web', '--image=nginx', '--replicas=1');
    await page.goto(`${WEB}#/r/apps/v1/deployments?ns=default`);
    await see(rowNamed('e2e-web'), 'the row e2e-web');
    await openObject('e2e-web');
    await actions.getByRole('button', { name: 'Edit', exact: true }).click();
    await see(page.getByRole('textbox', { name: 'YAML to apply or create' }), 'the YAML editor');
    await actions.getByRole('button', { name: 'Apply', exact: true }).click();
    await see(outcome.filter({ hasText: 'Applied as kube-sandbox-web' }), 'the apply succeeded');
    kubectl('scale', 'deployment', 'e2e-web', '--replicas=3');
    await eventually('kubectl to see 3 replicas', () => kubectl('get', 'deployment', 'e2e-web', '-o', 'jsonpath={.spec.replicas}') === '3');
    await actions.getByRole('button', { name: 'Apply', exact: true }).click();
    await see(outcome.locator('code').filter({ hasText: '.spec.replicas' }), 'the conflict on .spec.replicas');
    await outcome.getByRole('button', { name: 'Force apply' }).click();
    await see(outcome.filter({ hasText: 'Applied (forced) as kube-sandbox-web' }), 'the forced apply succeeded');
    await eventually('kubectl to see 1 replica', () => kubectl('get', 'deployment', 'e2e-web', '-o', 'jsonpath={.spec.replicas}') === '1');
    await actions.getByRole('button', { name: 'Cancel' }).click();
  }],

  ['New ConfigMap creates it, Delete after the confirmation deletes it', async () => {
    await page.goto(`${WEB}${CONFIGMAPS}`);
    await see(rowNamed('e2e-alpha'), 'the row e2e-alpha');
    await page.getByRole('button', { name: 'New ConfigMap' }).click();
    await see(page.getByRole('textbox', { name: 'YAML to apply or create' }), 'the YAML editor');
    await actions.getByRole('button', { name: 'Create', exact: true }).click();
    await see(outcome.filter({ hasText: 'Created ConfigMap new-configmap' }), 'the create succeeded');
    await eventually('kubectl to see new-configmap', () => !kubectlFails('get', 'configmap', 'new-configmap'));
    await actions.getByRole('button', { name: 'Cancel' }).click();
    await see(rowNamed('new-configmap'), 'the row new-configmap');
    await openObject('new-configmap');
    await actions.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Confirm the delete' });
    await see(confirm, 'the delete confirmation');
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await eventually('kubectl to see new-configmap gone', () => kubectlFails('get', 'configmap', 'new-configmap'));
    await see(rowNamed('new-configmap'), 'the row new-configmap', 'hidden');
  }],

  ['a CRD appears in the resource tree and disappears after its delete', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'e2ewidgets.e2e.example.com' },
      spec: {
        group: 'e2e.example.com',
        scope: 'Namespaced',
        names: { plural: 'e2ewidgets', singular: 'e2ewidget', kind: 'E2eWidget' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    execFileSync('kubectl', ['apply', '-f', '-'], { input: JSON.stringify(crd), stdio: ['pipe', 'ignore', 'pipe'] });
    const tree = page.getByRole('tree', { name: 'Resources' });
    const group = tree.locator('[role="treeitem"][title="e2e.example.com/v1"]');
    await see(group, 'the tree item of the group e2e.example.com');
    await group.locator('.group-row').click();
    const item = group.getByRole('treeitem').filter({ hasText: 'E2eWidget' });
    await see(item, 'the tree item of E2eWidget');
    kubectl('delete', 'crd', 'e2ewidgets.e2e.example.com', '--wait=true');
    await see(group, 'the tree item of the group e2e.example.com', 'hidden');
  }],

  ['a deep link opened cold in a new page shows the object', async () => {
    const cold = await context.newPage();
    try {
      await cold.goto(`${WEB}${CONFIGMAPS}&obj=e2e-live`);
      const yaml = cold.getByLabel('ConfigMap default/e2e-live', { exact: true });
      await see(yaml.filter({ hasText: 'name: e2e-live' }), 'the YAML of e2e-live');
      await eventually('the YAML to show the data', async () => /\bb: ["']?2/.test(await textOf(yaml)));
    } finally {
      await cold.close();
    }
  }],
];

let failed = false;
try {
  if (SCREENSHOTS) {
    mkdirSync(SCREENSHOTS, { recursive: true });
  }
  for (const [index, [name, run]] of scenarios.entries()) {
    try {
      await run();
    } catch (error) {
      console.error(`FAIL ${name}: ${error.message}`);
      if (pageErrors.length > 0) {
        console.error(`page errors: ${pageErrors.join('; ')}`);
      }
      if (SCREENSHOTS) {
        await page.screenshot({ path: join(SCREENSHOTS, `failed-${index + 1}.png`) }).catch(() => {});
      }
      failed = true;
      break;
    }
    if (SCREENSHOTS) {
      await page.screenshot({ path: join(SCREENSHOTS, `${index + 1}.png`) });
    }
    console.log(`ok ${index + 1} ${name}`);
  }
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
