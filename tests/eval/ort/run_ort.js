// Runs a model with ONNX Runtime (one intra-op thread) on .npy inputs and
// writes its outputs as .npy: the second oracle of tests/eval/ort_oracle.cc
// and the reference side of bench/eval_*.
//
// usage: node run_ort.js MODEL IN_DIR OUT_DIR [REPEAT]
//   IN_DIR/<input name>.npy for every graph input; writes OUT_DIR/<output index>.npy.
//   With REPEAT > 0, also times REPEAT runs and prints "ort_ms_per_run <ms>".
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const DTYPES = {
  '<f4': ['float32', Float32Array], '<f8': ['float64', Float64Array],
  '<i8': ['int64', BigInt64Array], '<i4': ['int32', Int32Array], '<i2': ['int16', Int16Array],
  '|i1': ['int8', Int8Array], '|u1': ['uint8', Uint8Array], '<u2': ['uint16', Uint16Array],
  '<u4': ['uint32', Uint32Array], '<u8': ['uint64', BigUint64Array], '|b1': ['bool', Uint8Array],
};

function readNpy(file) {
  const buf = fs.readFileSync(file);
  const major = buf[6];
  const hlen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const off = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', off, off + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim()).filter(s => s).map(Number);
  const data = buf.subarray(off + hlen);
  const uni = /^<U(\d+)$/.exec(descr);
  if (uni) {  // numpy unicode: fixed-width UTF-32LE, NUL-padded
    const width = Number(uni[1]);
    const n = shape.reduce((a, b) => a * b, 1);
    const strs = [];
    for (let i = 0; i < n; ++i) {
      let s = '';
      for (let c = 0; c < width; ++c) {
        const cp = data.readUInt32LE((i * width + c) * 4);
        if (cp === 0) break;
        s += String.fromCodePoint(cp);
      }
      strs.push(s);
    }
    return new ort.Tensor('string', strs, shape);
  }
  const [type, Arr] = DTYPES[descr];
  const copy = new Uint8Array(data.length);
  copy.set(data);
  const arr = new Arr(copy.buffer, 0, data.length / Arr.BYTES_PER_ELEMENT);
  return new ort.Tensor(type, type === 'bool' ? Uint8Array.from(arr) : arr, shape);
}

function writeNpy(file, t) {
  if (t.type === 'string') return writeStringNpy(file, t);
  const entry = Object.entries(DTYPES).find(([, [ty]]) => ty === t.type);
  if (!entry) throw new Error('cannot write ' + t.type);
  const data = t.type === 'bool' ? Buffer.from(Uint8Array.from(t.data, v => (v ? 1 : 0)))
                                 : Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  fs.writeFileSync(file, Buffer.concat([npyHeader(entry[0], t.dims), data]));
}

function npyHeader(descr, dims) {
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  while ((10 + header.length + 1) % 64) header += ' ';
  header += '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1');
  pre[6] = 1; pre[7] = 0;
  pre.writeUInt16LE(header.length, 8);
  return Buffer.concat([pre, Buffer.from(header, 'latin1')]);
}

function writeStringNpy(file, t) {
  const cps = t.data.map(s => Array.from(s, ch => ch.codePointAt(0)));
  const width = Math.max(1, ...cps.map(c => c.length));
  const data = Buffer.alloc(cps.length * width * 4);
  cps.forEach((c, i) => c.forEach((cp, j) => data.writeUInt32LE(cp, (i * width + j) * 4)));
  fs.writeFileSync(file, Buffer.concat([npyHeader('<U' + width, t.dims), data]));
}

(async () => {
  const [model, inDir, outDir, repeatArg] = process.argv.slice(2);
  // bench/models.sh sets ORT_THREADS to compare at other thread counts.
  const threads = Number(process.env.ORT_THREADS || 1);
  const session = await ort.InferenceSession.create(model, {intraOpNumThreads: threads, interOpNumThreads: 1});
  const feeds = {};
  for (const name of session.inputNames) feeds[name] = readNpy(path.join(inDir, name + '.npy'));
  const out = await session.run(feeds);
  fs.mkdirSync(outDir, {recursive: true});
  session.outputNames.forEach((name, i) => writeNpy(path.join(outDir, i + '.npy'), out[name]));
  const repeat = Number(repeatArg || 0);
  if (repeat > 0) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < repeat; ++i) await session.run(feeds);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6 / repeat;
    console.log('ort_ms_per_run ' + ms.toFixed(3));
  }
})().catch(e => { console.error('run_ort: ' + e.message); process.exit(1); });
