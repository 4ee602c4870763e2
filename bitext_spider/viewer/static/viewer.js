// Hovering an aligned sentence lights it up in both pages and in the sentence table.
(function () {
  function light(s, on) {
    document.querySelectorAll('[data-s="' + s + '"]').forEach(function (el) { el.classList.toggle("hot", on); });
  }
  document.addEventListener("mouseover", function (e) {
    var el = e.target.closest && e.target.closest("[data-s]");
    if (el) light(el.getAttribute("data-s"), true);
  });
  document.addEventListener("mouseout", function (e) {
    var el = e.target.closest && e.target.closest("[data-s]");
    if (el) light(el.getAttribute("data-s"), false);
  });
})();
