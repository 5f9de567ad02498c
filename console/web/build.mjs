// Builds the web console into a directory of exactly four files: index.html, app.js, app.css
// (minified, no source maps, nothing loaded from elsewhere) and favicon.svg (copied). index.html
// names the others by relative path, so the console works served at / or under any prefix.
//
//   node build.mjs --outdir DIR
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const root = dirname(fileURLToPath(import.meta.url));

function outdirArgument(argv) {
  const i = argv.indexOf('--outdir');
  const value = i >= 0 ? argv[i + 1] : argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length);
  if (!value) {
    console.error('usage: node build.mjs --outdir DIR');
    process.exit(2);
  }
  return resolve(value);
}

// The packages a bundle took files from ("yaml", "@codemirror/view"), by name.
function bundledPackages(metafile) {
  const names = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) {
      names.add(match[1]);
    }
  }
  return [...names].sort();
}

// The notices of the packages bundled into app.js, which their licenses ask to keep.
function licenseBanner(packages) {
  const notices = packages.map((name) => {
    const dir = join(root, 'node_modules', name);
    const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const license = readFileSync(join(dir, 'LICENSE'), 'utf8').trim();
    return `${meta.name} ${meta.version} (${meta.license})\n\n${license}`;
  });
  return `/*! Bundled third-party code:\n\n${notices.join('\n\n').replaceAll('*/', '* /')}\n*/`;
}

async function bundle(entry, loader) {
  const result = await esbuild.build({
    entryPoints: [join(root, entry)],
    bundle: true,
    minify: true,
    sourcemap: false,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: ['es2022', 'chrome105', 'firefox110', 'safari16'],
    legalComments: 'none',
    charset: 'utf8',
    outdir: 'out',
    logLevel: 'warning',
    metafile: true,
    ...(loader ? { loader } : {}),
  });
  const files = result.outputFiles;
  if (files.length !== 1) {
    throw new Error(`${entry}: expected one output file, got ${files.length}`);
  }
  return { text: files[0].text, packages: bundledPackages(result.metafile) };
}

const outdir = outdirArgument(process.argv.slice(2));
const [script, style] = await Promise.all([bundle('src/main.ts'), bundle('src/app.css')]);
const [js, css] = [script.text, style.text];
for (const [name, text] of [['app.js', js], ['app.css', css]]) {
  if (/https?:\/\/(?!www\.w3\.org\/)/.test(text.replace(/\/\*![\s\S]*?\*\//, ''))) {
    console.warn(`warning: ${name} names an absolute URL`);
  }
}
const html = readFileSync(join(root, 'src/index.html'), 'utf8')
  .replace(/>\s+</g, '><')
  .trim();
mkdirSync(outdir, { recursive: true });
writeFileSync(join(outdir, 'index.html'), `${html}\n`);
writeFileSync(join(outdir, 'app.js'), `${licenseBanner(script.packages)}\n${js}`);
writeFileSync(join(outdir, 'app.css'), css);
copyFileSync(join(root, 'src/favicon.svg'), join(outdir, 'favicon.svg'));
console.log(`built ${outdir}: index.html, app.js (${(js.length / 1024).toFixed(0)} KiB), app.css (${(css.length / 1024).toFixed(0)} KiB), favicon.svg`);
