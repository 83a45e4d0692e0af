// Loaded between require.js and the widgets HTML manager (see nb_ipywidgets_js in _config.yml).
// The manager's bundled modules locate their fonts relative to their own module URL; point every
// @jupyter-widgets module at _static/widgets/ (where the Makefile copies the bundle and its fonts),
// relative to this page's depth, instead of a CDN or the page's own folder.
(function () {
  var widgets = (document.documentElement.dataset.content_root || "./") + "_static/widgets";
  require.config({ paths: { "@jupyter-widgets/html-manager/dist": widgets, "@jupyter-widgets": widgets } });
})();

// The widgets typeset their HTML with the MathJax 2 API (MathJax.Hub.Queue); the book loads MathJax 3.
// Translate, once MathJax 3 (loaded with `defer`, so before DOMContentLoaded) is on the page.
document.addEventListener("DOMContentLoaded", function () {
  var mj = window.MathJax;
  if (!mj || mj.Hub || !mj.startup) return;
  mj.Hub = {
    Queue: function (command) {
      var element = command && command[2];
      if (!element) return;
      mj.startup.promise.then(function () { return mj.typesetPromise([element]); }).catch(function () {});
    },
  };
});
