// Peer benchmark: build the sitemaps of a build-shape CSV (bench/build_shapes.py: loc,
// lastmod, changefreq, priority and an `extensions` JSON cell) with sitemap.js, gzip level 6
// (like for like with urlset), 50,000 URLs a file and an index, as its README shows.
//
//   node build_csv.mjs SOURCE.csv OUTDIR HOST
//
// The extensions map to sitemap.js's item fields: images -> img, alternates -> links,
// videos -> video, news -> news. Prints one JSON line: {"seconds": ..., "count": ...}.
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { finished, pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { SitemapAndIndexStream, SitemapStream } from 'sitemap';

// One CSV line (RFC 4180 quoting; the shapes' cells hold no line break).
function cells(line) {
  const out = [];
  let at = 0;
  while (at <= line.length) {
    if (line[at] === '"') {
      let text = '';
      at++;
      for (;;) {
        const quote = line.indexOf('"', at);
        text += line.slice(at, quote);
        at = quote + 1;
        if (line[at] === '"') {
          text += '"';
          at++;
        } else break;
      }
      out.push(text);
      at++; // the comma
    } else {
      const comma = line.indexOf(',', at);
      const end = comma < 0 ? line.length : comma;
      out.push(line.slice(at, end));
      at = end + 1;
    }
  }
  return out;
}

function video(v) {
  const out = { ...v };
  if (v.tags) out.tag = v.tags;
  delete out.tags;
  return out;
}

function item([loc, lastmod, changefreq, priority, extensions]) {
  const entry = { url: loc };
  if (lastmod) entry.lastmod = lastmod;
  if (changefreq) entry.changefreq = changefreq;
  if (priority) entry.priority = Number(priority);
  if (extensions) {
    const ext = JSON.parse(extensions);
    if (ext.images) entry.img = ext.images.map((i) => ({ url: i.loc, title: i.title, caption: i.caption }));
    if (ext.alternates) entry.links = ext.alternates.map((a) => ({ lang: a.hreflang, url: a.href }));
    if (ext.videos) entry.video = ext.videos.map(video);
    if (ext.news) {
      const n = ext.news;
      entry.news = {
        publication: { name: n.publication_name, language: n.language },
        publication_date: n.publication_date,
        title: n.title,
      };
    }
  }
  return entry;
}

async function main() {
  const [source, outdir, host] = process.argv.slice(2);
  if (!source || !outdir || !host) {
    console.error('usage: node build_csv.mjs SOURCE.csv OUTDIR HOST');
    process.exit(2);
  }
  mkdirSync(outdir, { recursive: true });
  const t0 = process.hrtime.bigint();
  const fileStreams = [];
  const gzip = () => createGzip({ level: 6 });
  const sms = new SitemapAndIndexStream({
    limit: 50000,
    getSitemapStream: (i) => {
      const sitemapStream = new SitemapStream({ hostname: host });
      const name = `sitemap-${i}.xml.gz`;
      const ws = sitemapStream.pipe(gzip()).pipe(createWriteStream(resolve(outdir, name)));
      fileStreams.push(finished(ws));
      return [`${host}${name}`, sitemapStream, ws];
    },
  });
  let count = 0;
  const lines = createInterface({ input: createReadStream(source), crlfDelay: Infinity });
  async function* items() {
    let header = true;
    for await (const line of lines) {
      if (header) {
        header = false;
        continue;
      }
      count++;
      yield item(cells(line));
    }
  }
  const indexDone = pipeline(sms, gzip(), createWriteStream(resolve(outdir, 'sitemap-index.xml.gz')));
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
