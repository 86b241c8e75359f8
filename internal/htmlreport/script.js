(function(){
document.documentElement.setAttribute('data-script','ran');
var tip=document.getElementById('tip');
function tipOf(el){for(;el&&el!==document;el=el.parentNode){if(el.querySelector){var t=el.querySelector(':scope>title');if(t)return t.textContent}}return ''}
document.addEventListener('mouseover',function(e){var s=tipOf(e.target);if(!s){tip.style.display='none';return}tip.textContent=s;tip.style.display='block'});
document.addEventListener('mousemove',function(e){tip.style.left=(e.clientX+14)+'px';tip.style.top=(e.clientY+14)+'px'});
function all(open){document.querySelectorAll('details.text').forEach(function(d){d.open=open})}
document.querySelectorAll('[data-toggle]').forEach(function(b){b.addEventListener('click',function(){
var k=b.getAttribute('data-toggle');
if(k==='texts'){var o=b.getAttribute('aria-pressed')!=='true';all(o);b.setAttribute('aria-pressed',String(o));return}
if(k==='stalled'){var on=b.getAttribute('aria-pressed')!=='true';b.setAttribute('aria-pressed',String(on));
document.querySelectorAll('.stream').forEach(function(s){if(on&&s.getAttribute('data-stalls')==='0')s.setAttribute('data-hide','');else s.removeAttribute('data-hide')})}
})});
window.addEventListener('beforeprint',function(){all(true)});
})();
