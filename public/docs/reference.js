// Starts Swagger UI on /docs. A file of its own, not an inline script: the page's policy runs none.
const root = document.getElementById("reference");
if (root && typeof window.SwaggerUIBundle === "function") {
  window.SwaggerUIBundle({
    url: root.dataset.openapi,
    domNode: root,
    // Swagger UI's default sends the document to validator.swagger.io for a badge: nothing leaves here.
    validatorUrl: null,
    // Off: a deep link is an <a> inside each operation's toggle button, which no screen reader can reach.
    deepLinking: false,
    // Every tag open, every operation's method and path listed: the page is read as a table of routes.
    docExpansion: "list",
    // "Try it out" stays off: this page is read by people with API keys and tokens in hand, and a call
    // from here would be a real call (an SOS, an end of session) against this deployment.
    supportedSubmitMethods: [],
    // Plain examples: the highlighter's token colours fall below 4.5:1 on its dark background.
    syntaxHighlight: { activated: false },
  });
  labelParameterInputs(root);
}

/**
 * Swagger UI draws an enum parameter's <select> with no label (axe-core: select-name, critical): each one
 * is named after its parameter as soon as it appears.
 */
function labelParameterInputs(container) {
  const label = () => {
    for (const input of container.querySelectorAll("tr[data-param-name] select:not([aria-label])")) {
      const row = input.closest("tr[data-param-name]");
      input.setAttribute("aria-label", `${row.dataset.paramName} (${row.dataset.paramIn} parameter)`);
    }
  };
  new MutationObserver(label).observe(container, { childList: true, subtree: true });
}
