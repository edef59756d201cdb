// LoST's XML, read and written with a namespace-aware DOM (@xmldom/xmldom), never by string handling: a
// request is parsed within bounds (no DTD, so no entity of any kind; a depth limit) and an answer is built
// element by element and serialized.
import { DOMImplementation, DOMParser, type Element, type Node, XMLSerializer } from "@xmldom/xmldom";

export const LOST_NS = "urn:ietf:params:xml:ns:lost1";
export const GML_NS = "http://www.opengis.net/gml";
/** RFC 5491's geo shapes (Circle, Ellipse, ArcBand, Sphere, Ellipsoid, Prism). */
export const GEO_SHAPES_NS = "http://www.opengis.net/pidflo/1.0";
const XML_NS = "http://www.w3.org/XML/1998/namespace";
const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

/** A request that is not a document we can read: answered with LoST's `badRequest` and this message. */
export class UnreadableXmlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnreadableXmlError";
  }
}

/** Element children of a node (text, comments and processing instructions left out). */
export function childElements(node: Node): Element[] {
  const out: Element[] = [];
  for (let c = node.firstChild; c !== null; c = c.nextSibling) if (c.nodeType === 1) out.push(c as Element);
  return out;
}

/** The deepest element nesting of the document, counted without recursion (a hostile depth cannot overflow the stack). */
function depthOf(root: Element, limit: number): number {
  let deepest = 0;
  const stack: [Element, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [el, depth] = stack.pop() as [Element, number];
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of childElements(el)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * The document element of `text`. Refused: a document type declaration (so no entity, internal or
 * external, is ever declared), anything the parser reports as an error or warning, and elements nested
 * deeper than `maxDepth`.
 */
export function parseXml(text: string, maxDepth: number): Element {
  const problems: string[] = [];
  let doc: ReturnType<DOMParser["parseFromString"]>;
  try {
    doc = new DOMParser({ onError: (_level, message) => problems.push(message) }).parseFromString(
      text,
      "text/xml",
    );
  } catch (err) {
    throw notWellFormed(err instanceof Error ? err.message : "");
  }
  if (doc.doctype) throw new UnreadableXmlError("a document type declaration is not accepted");
  if (problems.length > 0) throw notWellFormed(problems[0] ?? "");
  const root = doc.documentElement;
  if (!root) throw new UnreadableXmlError("the body holds no XML element");
  if (depthOf(root, maxDepth) > maxDepth)
    throw new UnreadableXmlError(`the XML is nested deeper than ${maxDepth} elements`);
  return root;
}

/**
 * The parser's complaint, said by where it is only: its own words quote the document, which holds the
 * caller's coordinates, and an error message never repeats them.
 */
function notWellFormed(parserMessage: string): UnreadableXmlError {
  const at = /\[line:(\d+),col:(\d+)\]/.exec(parserMessage);
  const where = at ? ` (line ${at[1]}, column ${at[2]})` : "";
  return new UnreadableXmlError(`the body is not well-formed XML${where}`);
}

/** Characters XML 1.0 cannot carry (its Char production), replaced so an answer is always well-formed. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const xmlSafe = (text: string): string => text.replace(NOT_XML_CHAR, "\uFFFD");

/** An element to build: its namespace, name, attributes, text or children. */
export interface XmlNode {
  ns?: string;
  name: string;
  attributes?: Record<string, string | undefined>;
  /** `xml:lang`, for the elements LoST gives a language. */
  lang?: string;
  text?: string;
  children?: readonly XmlNode[];
}

/** Serializes a tree built of XmlNode, the root in LoST's namespace, with the XML declaration. */
export function serializeXml(root: XmlNode): string {
  const doc = new DOMImplementation().createDocument(root.ns ?? LOST_NS, root.name, null);
  const fill = (el: Element, node: XmlNode) => {
    for (const [key, value] of Object.entries(node.attributes ?? {})) {
      if (value === undefined) continue;
      // A prefix declared for the qualified names an element holds as text (LoST's locationValidation).
      if (key.startsWith("xmlns:")) el.setAttributeNS(XMLNS_NS, key, value);
      else el.setAttribute(key, xmlSafe(value));
    }
    if (node.lang !== undefined) el.setAttributeNS(XML_NS, "xml:lang", node.lang);
    if (node.text !== undefined) el.appendChild(doc.createTextNode(xmlSafe(node.text)));
    for (const child of node.children ?? []) {
      const c = doc.createElementNS(child.ns ?? LOST_NS, child.name);
      fill(c, child);
      el.appendChild(c);
    }
  };
  if (doc.documentElement) fill(doc.documentElement, root);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(doc)}`;
}
