// Table (meta.k8s.io/v1) documents as the server sends them, for tests.

export const CONFIGMAP_COLUMNS = [
  { name: 'Name', type: 'string', format: 'name', description: 'Name of the object.', priority: 0 },
  { name: 'Data', type: 'string', format: '', description: '', priority: 0 },
  { name: 'Age', type: 'string', format: '', description: 'Time since the object was created.', priority: 0 },
];

export interface TestObject {
  name: string;
  namespace?: string;
  uid?: string;
  rv?: string;
  created?: string;
  cells?: unknown[];
}

export function tableRow(o: TestObject): unknown {
  return {
    cells: o.cells ?? [o.name, 1, '5m'],
    object: {
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadata',
      metadata: {
        name: o.name,
        namespace: o.namespace ?? 'default',
        uid: o.uid ?? `uid-${o.namespace ?? 'default'}-${o.name}`,
        resourceVersion: o.rv ?? '1',
        creationTimestamp: o.created ?? '2024-01-01T00:00:00Z',
        managedFields: [{ manager: 'test' }],
      },
    },
  };
}

export function table(objects: TestObject[], meta: { rv?: string; continue?: string } = {}, columns: unknown[] = CONFIGMAP_COLUMNS): unknown {
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: meta.rv ?? '10', ...(meta.continue ? { continue: meta.continue } : {}) },
    columnDefinitions: columns,
    rows: objects.map(tableRow),
  };
}

export function watchLine(type: string, o: TestObject): string {
  const object = table([o], { rv: o.rv ?? '1' });
  return `${JSON.stringify({ type, object })}\n`;
}

export function bookmarkLine(rv: string): string {
  return `${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: rv } } })}\n`;
}

export function errorLine(code: number, reason: string, message: string): string {
  return `${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message } })}\n`;
}
