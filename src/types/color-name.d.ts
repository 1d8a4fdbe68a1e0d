declare module 'color-name' {
  /** The CSS named colours (lower case) as [red, green, blue]. */
  const colors: Readonly<Record<string, readonly [number, number, number]>>;
  export default colors;
}
