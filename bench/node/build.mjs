// Peer benchmark: write N URLs as gzipped sitemaps plus an index with sitemap.js.
//
//   node build.mjs N OUTDIR docs|buffered
//
// docs:     SitemapAndIndexStream -> SitemapStream -> createGzip -> file, as the
//           sitemap.js README shows ("Create sitemap and index files from one large list").
// buffered: the same, with a Transform in front of gzip that coalesces the many small
//           chunks SitemapStream emits into 64 KiB writes.
//
// Prints one JSON line: {"seconds": ..., "count": ...} (count = items written).
import { createWriteStream, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Transform, Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { SitemapAndIndexStream, SitemapStream } from 'sitemap';

const HOST = 'https://www.example.com';
const CHANGEFREQ = ['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never'];
const DAY_MS = 86400000;
const EPOCH = Date.UTC(2020, 0, 1);

function item(i) {
  // Same deterministic values as bench/peers/run.py's item().
  return {
    url: `${HOST}/products/item-${i}`,
    lastmod: new Date(EPOCH + (i % 1461) * DAY_MS).toISOString().slice(0, 10),
    changefreq: CHANGEFREQ[i % 7],
    priority: (i % 11) / 10,
  };
}

class Coalesce extends Transform {
  constructor(size = 65536) {
    super();
    this.size = size;
    this.parts = [];
    this.len = 0;
  }
  _transform(chunk, enc, cb) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, enc) : chunk;
    this.parts.push(buf);
    this.len += buf.length;
    if (this.len >= this.size) {
      this.push(Buffer.concat(this.parts, this.len));
      this.parts = [];
      this.len = 0;
    }
    cb();
  }
  _flush(cb) {
    if (this.len) this.push(Buffer.concat(this.parts, this.len));
    cb();
  }
}

async function main() {
  const [nArg, outdir, mode = 'docs'] = process.argv.slice(2);
  const n = Number.parseInt(nArg, 10);
  if (!Number.isFinite(n) || !outdir || !['docs', 'buffered'].includes(mode)) {
    console.error('usage: node build.mjs N OUTDIR docs|buffered');
    process.exit(2);
  }
  mkdirSync(outdir, { recursive: true });
  const t0 = process.hrtime.bigint();
  const fileStreams = [];
  const sms = new SitemapAndIndexStream({
    limit: 50000,
    getSitemapStream: (i) => {
      const sitemapStream = new SitemapStream({ hostname: HOST, lastmodDateOnly: true });
      const name = `sitemap-${i}.xml.gz`;
      let head = sitemapStream;
      if (mode === 'buffered') head = head.pipe(new Coalesce());
      const ws = head.pipe(createGzip()).pipe(createWriteStream(resolve(outdir, name)));
      fileStreams.push(finished(ws));
      return [`${HOST}/${name}`, sitemapStream, ws];
    },
  });
  let count = 0;
  function* items() {
    for (let i = 0; i < n; i++) {
      count++;
      yield item(i);
    }
  }
  const indexOut = [sms];
  if (mode === 'buffered') indexOut.push(new Coalesce());
  indexOut.push(createGzip(), createWriteStream(resolve(outdir, 'sitemap-index.xml.gz')));
  const indexDone = pipeline(...indexOut);
  Readable.from(items()).pipe(sms);
  await indexDone;
  await Promise.all(fileStreams);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  process.stdout.write(JSON.stringify({ seconds, count }) + '\n');
}

main().catch((err) => {
  console.error(err && err.stack ? err.stack : String(err));
  process.exit(1);
});
