import { useState } from 'preact/hooks';

/** Page images, one under the other; a page that fails to render says so. */
export function PageImages({ sources, name }: { sources: string[]; name: string }) {
  return (
    <div class="pages">
      {sources.map((src, i) => <PageImage key={src} src={src} alt={`${name}, page ${i + 1}`} />)}
    </div>
  );
}

function PageImage({ src, alt }: { src: string; alt: string }) {
  const [failed, setFailed] = useState(false);
  if (failed) return <div class="page missing">{alt}: no preview</div>;
  return <img class="page" src={src} alt={alt} loading="lazy" onError={() => setFailed(true)} />;
}
