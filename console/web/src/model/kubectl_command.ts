// kubectl command lines that do what the console shows: get an object as YAML, and apply the
// editor's YAML server-side under the console's field manager.
import type { ResourceRef } from './resource_ref';
import { FIELD_MANAGER } from './write_requests';

// A word for a POSIX shell: as is when it is plain, else single-quoted.
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

// "configmaps", "deployments.apps": the resource as kubectl names it without ambiguity.
export function kubectlResource(ref: ResourceRef): string {
  return ref.group === '' ? ref.resource : `${ref.resource}.${ref.group}`;
}

export function kubectlGet(ref: ResourceRef, namespace: string, name: string): string {
  const words = ['kubectl', 'get', kubectlResource(ref), name, ...(namespace === '' ? [] : ['-n', namespace]), '-o', 'yaml'];
  return words.map(shellWord).join(' ');
}

// The YAML on the command's standard input, as a here-document whose end marker is not a line
// of the text.
export function kubectlApply(yamlText: string): string {
  const lines = new Set(yamlText.split('\n'));
  let marker = 'EOF';
  for (let i = 1; lines.has(marker); i += 1) {
    marker = `EOF${i}`;
  }
  const text = yamlText.endsWith('\n') ? yamlText : `${yamlText}\n`;
  return `kubectl apply --server-side --field-manager=${FIELD_MANAGER} -f - <<'${marker}'\n${text}${marker}\n`;
}
