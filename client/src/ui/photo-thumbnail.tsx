import { useState } from 'react';
import { PhotoLightbox } from './photo-lightbox';

/** `onError`: the picture did not load (its owner may say why instead). */
type TProps = { src: string; alt: string; caption: string | null; sticker: boolean; onError?: () => void };

/** A photo or sticker at thumbnail size; a click shows it full size (Ctrl/⌘/middle click: a new tab, as any link). */
export function PhotoThumbnail({ src, alt, caption, sticker, onError }: TProps) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <a
        className={`attachment-image ${sticker ? 'sticker' : 'image'}`}
        href={src}
        target="_blank"
        rel="noopener noreferrer"
        title="Open full size"
        onClick={(event) => {
          if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey || event.button !== 0) return;
          event.preventDefault();
          setOpen(true);
        }}
      >
        <img src={src} alt={alt} loading="lazy" onError={onError} />
      </a>
      {open && <PhotoLightbox src={src} alt={alt} caption={caption} onClose={() => setOpen(false)} />}
    </>
  );
}
