// The template layer-cost file the page offers for download: a ppb.model.v1 document with every field a layer can
// have, filled with the numbers of a 7B-class decoder (hidden 4096, sequence 4096, tp 2, bf16), so a person can
// replace them with their own profiled figures. docs/contract.md (Model document) says what each field means.

/** The template, as the document the page downloads. */
export const TEMPLATE_MODEL = {
  format: 'ppb.model.v1',
  name: 'template: replace the numbers with your profiled ones (docs/contract.md, Model document, says what each field means)',
  layers: [
    { name: 'embedding', kind: 'embedding', pin: 'first', forward_ms: 0.3, backward_ms: 0.6, weight_backward_ms: 0.6,
      weights_mib: 250, grads_mib: 500, optimizer_mib: 1500, activation_mib: 16, send_mib: 32 },
    { name: 'decoder', kind: 'decoder', count: 32, forward_ms: 2.4, backward_ms: 4.8, weight_backward_ms: 2.4,
      weights_mib: 386, grads_mib: 772, optimizer_mib: 2316, activation_mib: 544, send_mib: 32,
      recompute: { full: { activation_mib: 32, extra_ms: 2.4 }, selective: { activation_mib: 288, extra_ms: 0.6 } } },
    { name: 'final norm and lm_head', kind: 'head', pin: 'last', forward_ms: 1.6, backward_ms: 3.2, weight_backward_ms: 1.6,
      weights_mib: 250, grads_mib: 500, optimizer_mib: 1500, activation_mib: 500 },
  ],
};
