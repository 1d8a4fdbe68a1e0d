import { useRef, useState } from 'preact/hooks';

interface Props {
  label: string;
  hint?: string;
  accept: string;
  multiple?: boolean;
  disabled?: boolean;
  onFiles(files: File[]): void;
}

/** Drop files here, or click to choose them (the input stays reachable for keyboards and tests). */
export function DropZone({ label, hint, accept, multiple = false, disabled = false, onFiles }: Props) {
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const take = (list: FileList | null | undefined) => {
    const files = list ? Array.from(list) : [];
    if (files.length > 0) onFiles(multiple ? files : files.slice(0, 1));
  };
  return (
    <label
      class={`dropzone${over ? ' over' : ''}${disabled ? ' disabled' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        if (!disabled) take(event.dataTransfer?.files);
      }}
    >
      <input
        ref={input}
        type="file"
        accept={accept}
        multiple={multiple}
        disabled={disabled}
        aria-label={label}
        onChange={(event) => {
          take((event.currentTarget as HTMLInputElement).files);
          if (input.current) input.current.value = '';
        }}
      />
      <strong>{label}</strong>
      {hint && <span class="hint">{hint}</span>}
    </label>
  );
}
