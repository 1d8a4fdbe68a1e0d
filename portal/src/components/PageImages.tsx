import { useState } from 'preact/hooks';
import { useTemplateImage } from '../links';

/** Page images, one under the other; a page that fails to render says so. */
export function PageImages({ sources, name }: { sources: string[]; name: string }) {
  return (
    <div class="pages">
      {sources.map((src, i) => (
        <PageImage key={src} src={src} alt={`${name}, page ${i + 1}`} />
      ))}
    </div>
  );
}

function PageImage({ src, alt }: { src: string; alt: string }) {
  const [failed, setFailed] = useState(false);
  if (failed) return <div class="page missing">{alt}: no preview</div>;
  return <img class="page" src={src} alt={alt} loading="lazy" onError={() => setFailed(true)} />;
}

/** The pages of a stored template, each fetched with the user's credentials. */
export function TemplatePages({ name, pages, version = '' }: { name: string; pages: number; version?: string }) {
  return (
    <div class="pages">
      {Array.from({ length: pages }, (_, i) => (
        <TemplatePage key={`${i}:${version}`} name={name} page={i + 1} version={version} />
      ))}
    </div>
  );
}

function TemplatePage({ name, page, version }: { name: string; page: number; version: string }) {
  const src = useTemplateImage(name, page, 100, version);
  const alt = `${name}, page ${page}`;
  if (src === null) return <div class="page missing">{alt}: no preview</div>;
  if (src === undefined)
    return (
      <div class="page loading" aria-busy="true">
        {alt}…
      </div>
    );
  return <img class="page" src={src} alt={alt} />;
}
