// End-to-end test of the web console in a real browser: Debian's Chromium driven by
// playwright-core (which never downloads a browser), against a running `kube-sandbox serve`:
// sign in, filter, live rows and watch events with a diff, apply with a conflict and a forced
// apply, create and delete, a custom resource in the tree, a cold deep link.
//
//   KS_WEB_LOGIN=<web>login?token=<token> KUBECONFIG=<admin kubeconfig> \
//     node e2e/web_console.e2e.mjs
//
// The other suites (*.e2e.mjs) cover the editor, the table and events pane, and the loopback
// protections; harness.mjs holds what they share.
import {
  CONFIGMAPS, WEB, consoleParts, eventually, kubectl, kubectlApply, kubectlFails, openBrowser, runScenarios, see, textOf,
} from './harness.mjs';

const session = await openBrowser();
const { context, page } = session;
const { rowNamed, events, actions, outcome, openObject, editor, signIn } = consoleParts(page);

const scenarios = [
  ['sign in with a deep link shows the ConfigMap table', async () => {
    kubectl('create', 'configmap', 'e2e-alpha', '--from-literal=k=v');
    kubectl('create', 'configmap', 'e2e-beta', '--from-literal=k=v');
    await signIn(CONFIGMAPS);
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
    await see(editor, 'the YAML editor');
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

  ['New ConfigMap creates it (the URL and the cursor follow), Delete after the confirmation deletes it', async () => {
    await page.goto(`${WEB}${CONFIGMAPS}`);
    await see(rowNamed('e2e-alpha'), 'the row e2e-alpha');
    await page.getByRole('button', { name: 'New ConfigMap' }).click();
    await see(editor, 'the YAML editor');
    await actions.getByRole('button', { name: 'Create', exact: true }).click();
    await see(outcome.filter({ hasText: 'Created ConfigMap new-configmap' }), 'the create succeeded');
    await eventually('kubectl to see new-configmap', () => !kubectlFails('get', 'configmap', 'new-configmap'));
    await eventually('the URL to name new-configmap', () => page.url() === `${WEB}${CONFIGMAPS}&obj=new-configmap`);
    await see(rowNamed('new-configmap').and(page.locator('[aria-selected="true"]')), 'the cursor on the row new-configmap');
    await see(page.getByRole('heading', { name: 'Edit ConfigMap default/new-configmap' }), 'the editor going on with new-configmap');
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
    kubectlApply(crd);
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

await runScenarios('basics', session, scenarios);
