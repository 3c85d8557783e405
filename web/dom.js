// Small DOM helpers shared by the page's modules.

export const PLACEHOLDER = 'placeholder.svg';

export const $ = (selector, root = document) => root.querySelector(selector);

/** Creates an element: el('p', {className: 'x'}, 'text', child) */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name in node && !name.includes('-')) node[name] = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  node.append(
    ...children.flat(Infinity).filter((child) => child !== null && child !== undefined && child !== false),
  );
  return node;
}

/** An <img> that falls back to the local placeholder: listing photos may live anywhere, or be offline. */
export function photo(url, alt, className) {
  const img = el('img', {
    src: url || PLACEHOLDER,
    alt,
    className,
    loading: 'lazy',
    decoding: 'async',
    referrerPolicy: 'no-referrer',
  });
  img.addEventListener(
    'error',
    () => {
      img.src = PLACEHOLDER;
    },
    { once: true },
  );
  return img;
}
