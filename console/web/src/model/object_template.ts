// The object a "New" starts from: apiVersion, kind, metadata.name (and namespace for a
// namespaced resource) filled, with a minimal body for the kinds everyone creates and an empty
// spec for the others.
import type { JsonObject } from './json';

export interface TemplateTarget {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

function body(kind: string, name: string): JsonObject {
  const labels = { app: name };
  switch (kind) {
    case 'ConfigMap':
      return { data: { key: 'value' } };
    case 'Secret':
      return { type: 'Opaque', stringData: { key: 'value' } };
    case 'Namespace':
      return {};
    case 'ServiceAccount':
      return {};
    case 'Pod':
      return { spec: { containers: [{ name, image: 'nginx' }] } };
    case 'Deployment':
      return {
        spec: {
          replicas: 1,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name, image: 'nginx' }] } },
        },
      };
    case 'Service':
      return { spec: { selector: labels, ports: [{ port: 80, targetPort: 80 }] } };
    default:
      return { spec: {} };
  }
}

// A name that reads as new: "new-configmap".
export function templateName(kind: string): string {
  return `new-${kind.toLowerCase()}`;
}

export function objectTemplate(target: TemplateTarget, namespace: string): JsonObject {
  const name = templateName(target.kind);
  const apiVersion = target.group === '' ? target.version : `${target.group}/${target.version}`;
  const metadata = target.namespaced ? { name, namespace: namespace === '' ? 'default' : namespace } : { name };
  return { apiVersion, kind: target.kind, metadata, ...body(target.kind, name) };
}
